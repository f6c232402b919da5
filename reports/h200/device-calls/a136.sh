#!/bin/bash
# Call 136: both ladders with the isolation-overhead benchmark (call 135 ran out of time for
# them), then two repeats, cold: rmsnorm bf16 2048x32768 with auto's streamed kernel against the
# staged kernel auto took before (call 135's bench measured 0.842 where call 133's A/B gave the
# streamed kernel 73.7 us), and layernorm bf16 4096x16384 (auto's row kernel; torch.compile
# 72.3 us) against the streamed kernel at two passes and at 1024 threads. Files go to $OUT.
set -u
export LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=${LADDER_COMMIT:?}
B=$PWD/.device/ladder
o=/tmp/o136; mkdir -p $o $OUT
export LADDER_KERNELS_DIR=$PWD/kernels
(time SKIP_BUILD=1 OUT=$o bash scripts/device_check.sh ladders) > $OUT/device_log_ladders.txt 2>&1
cp $o/run.json $o/ladder.json $OUT/ 2>/dev/null
grep -E "^==|exit|rungs:|real|overhead" $OUT/device_log_ladders.txt | head -14
bench() { timeout 40 $B bench "$@" 2>&1 | grep -E " ladder |copy ceiling"; }
{
for rep in 1 2; do
  bench rmsnorm --dtype bf16 --shape 2048x32768 | sed "s/^/auto-loop-t512 /"
  bench rmsnorm --dtype bf16 --shape 2048x32768 --variant schedule=staged | sed "s/^/staged /"
  bench layernorm --dtype bf16 --shape 4096x16384 | sed "s/^/auto-row /"
  bench layernorm --dtype bf16 --shape 4096x16384 --variant schedule=loop --variant loop_threads=512 --variant loop_passes=2 | sed "s/^/loop-p2-t512 /"
  bench layernorm --dtype bf16 --shape 4096x16384 --variant schedule=loop --variant loop_threads=1024 --variant loop_passes=2 | sed "s/^/loop-p2-t1024 /"
  bench layernorm --dtype bf16 --shape 4096x16384 --variant schedule=loop --variant loop_threads=1024 | sed "s/^/loop-p3-t1024 /"
done
} > $OUT/bench-loop-7.txt 2>&1
grep -v "copy ceiling" $OUT/bench-loop-7.txt | awk '{print $1,$2,$3,$4,$5,$8,$11}'
echo "total $SECONDS s"
true
