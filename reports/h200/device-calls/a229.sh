#!/bin/bash
# Call 229: the streaming register kernels' partial rows in shared memory (StreamedPartials; the
# planner gives the dynamic shared memory). (1) Streaming shapes: b594afe's binary and kernels
# (base) against this commit's (smem); (2) one-tile shapes, whose kernels share the code: this
# binary with b594afe's kernels (base) against its own; two rounds, cold. Then every backward
# verify rung (partial_rows=global keeps the global path in the grid), racecheck and memcheck over
# the streaming bf16 rungs at the --quick shapes, and ladder bench and bench_peers.py for main.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT /tmp/t
B=$PWD/.device/ladder OLD=$PWD/.device/ladder_base
NEW=$PWD/kernels BASE=$PWD/.device/base/kernels
export LADDER_CACHE_DIR=/tmp/lc
nvidia-smi -L
left() { local l=$(( $1 - SECONDS )); [ $l -lt 5 ] && l=5; echo $l; }
b() { local tag=$1 bin=$2 dir=$3; shift 3; LADDER_KERNELS_DIR=$dir timeout $(left 170) $bin bench "$@" 2>&1 | grep -E " ladder |copy ceiling|rror" | sed "s/^/$tag /"; }
W="--shape 2048x16385 --shape 4096x8193 --shape 4096x12289 --shape 1024x32769"
O="--shape 8192x2049 --shape 16384x2049 --shape 4096x5125 --shape 16384x4096"
{ echo "# Call 229 ($LADDER_COMMIT, a229.sh): streaming shapes: base (b594afe's binary and kernels) against smem (this commit's); one-tile shapes: base (b594afe's kernels) against smem, this binary. Cold. Columns: tag op dtype rows d impl hot cold hotGBps coldGBps frac same clean_us clean_frac."
  for op in rmsnorm_bwd layernorm_bwd add_rmsnorm_bwd; do
    b base $OLD $BASE $op --dtype bf16 $W; b smem $B $NEW $op --dtype bf16 $W
  done
  for op in rmsnorm_bwd layernorm_bwd; do b base $OLD $BASE $op --dtype f32 --shape 2048x16385; b smem $B $NEW $op --dtype f32 --shape 2048x16385; done
  for rep in 1 2; do for op in rmsnorm_bwd layernorm_bwd add_rmsnorm_bwd; do
    b base $B $BASE $op --dtype bf16 $O; b smem $B $NEW $op --dtype bf16 $O
  done; done
} > $OUT/bench-streamed-229.txt
grep -v "copy ceiling" $OUT/bench-streamed-229.txt | awk 'NR>1{print $1,$2,$3,$4,$5,$8,$11}' | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1 -s
grep -i "rror" $OUT/bench-streamed-229.txt | head -5
echo "bench done $SECONDS s"
export LADDER_KERNELS_DIR=$NEW
$B verify rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd --write-ladder /tmp/v.json > /dev/null
timeout $(left 360) $B run --ladder /tmp/v.json --jobs 14 --json $OUT/verify-bwd-229.json > $OUT/verify-bwd-229.txt 2>&1; echo "verify exit $?"
grep -E "FAIL|UNRESOLVED|XPASS|rungs:" $OUT/verify-bwd-229.txt | head -20
echo "verify done $SECONDS s"
$B verify rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd --quick --write-ladder /tmp/vq.json > /dev/null
for tool in racecheck memcheck; do
  extra=""; [ $tool = memcheck ] && extra="--bare-allocations"
  timeout $(left 440) compute-sanitizer --tool $tool --target-processes all --print-limit 5 $B run --ladder /tmp/vq.json '*_bwd_bf16_strided_odd' '*_bwd_bf16_shift_1' '*_bwd_bf16*partial_rows*' --jobs 8 $extra > /tmp/san.txt 2>&1
  { echo "exit $?"; grep -E "RACECHECK SUMMARY|ERROR SUMMARY|rungs:|Hazard|Invalid|out of bounds|Program hit" /tmp/san.txt | sort | uniq -c; } > $OUT/$tool-streamed-229.txt
  echo "== $tool"; cat $OUT/$tool-streamed-229.txt
done
{ echo "# Call 229 ($LADDER_COMMIT, a229.sh)"; nvidia-smi --query-gpu=name,driver_version --format=csv
  echo "== bench"; (time timeout $(left 560) $B bench --json $OUT/bench.json) 2>&1 | grep -E "copy ceiling|real"
  echo "== peers"; (time timeout $(left 595) python3 scripts/bench_peers.py --json $OUT/peers.json > /tmp/t/peers.txt 2>&1) 2>&1 | grep real; tail -2 /tmp/t/peers.txt
} > $OUT/device_log_229.txt 2>&1
cat $OUT/device_log_229.txt
echo "total $SECONDS s"
true
