#!/bin/bash
# Call 150: the evidence for main as it stands (the streamed LayerNorm's 16-bit builds with a row
# loop body per kind of launch at 1536 / THREADS blocks an SM, and auto taking it for 16-bit rows
# of 2048 chunks), on the carried binary: verify (every op, dtype and variant, fixtures included,
# with LayerNorm launches given gamma alone or beta alone new to the grid) and its worst-error tables; f16 and fp32 LayerNorm against the kernels before (.device/K: main's
# kernels/ at 3f98bf6), which call 149 did not measure; bench, the peers beside it; the device's
# own cmake/nvcc/Catch2 v3 build (in the background during verify) and its ctest (gpu label
# included). Files go to $OUT as each step ends, so a run cut short keeps what finished.
set -u
export LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=${LADDER_COMMIT:?} LADDER_KERNELS_DIR=$PWD/kernels
o=/tmp/o150; mkdir -p $o $OUT
export LADDER_BUILD_DIR=$PWD/build-device
( { time scripts/build; } > /tmp/build150.txt 2>&1 ) &
bp=$!
step() { (time SKIP_BUILD=1 PEERS_TIMEOUT=90 OUT=$o bash scripts/device_check.sh $1) > /tmp/o150-$1.txt 2>&1
         grep -E "^==|exit|rungs:|real|SUMMARY|overhead|copy ceiling" /tmp/o150-$1.txt | head -14
         cp -r $o/. $OUT/ 2>/dev/null; }
step verify
step worst
B=$PWD/.device/ladder
b() { local tag=$1 k=$2; shift 2; LADDER_KERNELS_DIR=$k LADDER_CACHE_DIR=/tmp/lc-$tag timeout 60 $B bench layernorm "$@" 2>&1 | grep -E " ladder |copy ceiling|rror" | sed "s/^/$tag /"; }
{ for rep in 1 2; do
    for dt in f16 bf16; do
      b K $PWD/.device/K --dtype $dt --shape 16384x4096 --shape 8192x8192 --shape 4096x16384
      b new $PWD/kernels --dtype $dt --shape 16384x4096 --shape 8192x8192 --shape 4096x16384
      b new-row $PWD/kernels --dtype $dt --shape 4096x16384 --variant schedule=row
    done
    b K $PWD/.device/K --dtype f32 --shape 16384x4096 --shape 8192x8192 --shape 4096x16384
    b new $PWD/kernels --dtype f32 --shape 16384x4096 --shape 8192x8192 --shape 4096x16384
  done; } > $OUT/bench-loop-kinds.txt
grep -v "copy ceiling" $OUT/bench-loop-kinds.txt | sort -k3,3 -k4,4n -k5,5n -k1,1 | awk '{print $1,$3,$4,$5,$8,$11,"clean",$13,$14}'
echo "A/B done at $SECONDS s"
wait $bp; grep -E "error|real" /tmp/build150.txt | head
step bench
step peers
cat /tmp/o150-verify.txt /tmp/o150-worst.txt /tmp/o150-bench.txt /tmp/o150-peers.txt > $OUT/device_log.txt
{ echo "== build on the device machine"; grep real /tmp/build150.txt; nvidia-smi --query-gpu=name,driver_version --format=csv;
  echo "== ctest (gpu label included)"; (cd build-device && time timeout $((585-SECONDS)) ctest --output-on-failure 2>&1 | tail -15); } > $OUT/device-tests.txt 2>&1
grep -E "tests passed|Passed|Failed|real" $OUT/device-tests.txt
echo "total $SECONDS s"
true
