#!/bin/bash
# Call 163: the evidence for main after calls 161-162 (column_sum's batched loads, one column a
# thread off the 16-byte grid; the two-stage bulk-copy backward kernels refilling at the row's
# end). First the backward at d = 2049, where call 162's column_sum took four columns a thread
# and lost 2 us: main against f5b3a53 (.device/ladder_old with .device/k_old), two repeats, cold.
# Then verify (every op, dtype and variant, fixtures included) and its worst-error tables, the
# bench, the peers and both ladders with the overhead benchmark, with the carried binary; the
# device's own cmake/nvcc/Catch2 v3 build in the background meanwhile, and its ctest (gpu label
# included) last. Files go to $OUT as each step ends (at most eight: the A/B opens device_log.txt).
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
K=$PWD/kernels
( export LADDER_BUILD_DIR=$PWD/build-device; { time scripts/build; } > /tmp/build163.txt 2>&1 ) &
bp=$!
b() { local tag=$1 bin=$2 k=$3; shift 3; LADDER_KERNELS_DIR=$k LADDER_CACHE_DIR=/tmp/lc-$tag timeout 90 $bin bench "$@" 2>&1 | grep -E " ladder |copy ceiling|rror" | sed "s/^/$tag /"; }
{ for rep in 1 2; do
    b new $PWD/.device/ladder $K rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd --dtype bf16 --shape 8192x2049 --shape 4096x5125
    b old $PWD/.device/ladder_old $PWD/.device/k_old rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd --dtype bf16 --shape 8192x2049 --shape 4096x5125
  done; } > $OUT/device_log.txt
grep -v "copy ceiling" $OUT/device_log.txt | awk '{print $1,$2,$3,$4,$5,$8,$9,$11}' | sort -k2,2 -k4,4n -k5,5n -k1,1 -s
export LADDER_CACHE_DIR=/tmp/lc LADDER_KERNELS_DIR=$K
o=/tmp/o163; mkdir -p $o
step() { (time SKIP_BUILD=1 PEERS_TIMEOUT=120 OUT=$o bash scripts/device_check.sh $1) > /tmp/o163-$1.txt 2>&1
         grep -E "^==|exit|rungs:|real|SUMMARY|overhead|copy ceiling" /tmp/o163-$1.txt | head -14
         rm -f $o/verify.txt; cp -r $o/. $OUT/ 2>/dev/null; }
step verify
step worst
step bench
step peers
step ladders
cat /tmp/o163-verify.txt /tmp/o163-worst.txt /tmp/o163-bench.txt /tmp/o163-peers.txt /tmp/o163-ladders.txt >> $OUT/device_log.txt
wait $bp
{ echo "== build on the device machine"; grep -E "error|real" /tmp/build163.txt; nvidia-smi --query-gpu=name,driver_version --format=csv
  echo "== ctest (gpu label included)"; (cd build-device && time timeout $((588-SECONDS)) ctest --output-on-failure 2>&1 | tail -15); } > $OUT/device-tests.txt 2>&1
grep -E "tests passed|Passed|Failed|real|error" $OUT/device-tests.txt
echo "total $SECONDS s"
true
