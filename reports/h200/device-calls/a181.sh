#!/bin/bash
# Call 181: the evidence for main after the backward's rows wider than 2048 chunks split over
# thread-block clusters (calls 179-180): the selftest's launch guards; then verify (every op,
# dtype and variant, fixtures included, the bulk_cluster rungs among them), its worst-error
# tables and the bench (whose default cases now include the cluster shapes), with the carried
# binary; compute-sanitizer over the bf16 cluster rungs. Files go to $OUT as each step ends.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
export LADDER_CACHE_DIR=/tmp/lc LADDER_KERNELS_DIR=$PWD/kernels
B=$PWD/.device/ladder
{ timeout 120 $B run --ladder probes/selftest.json 'st_bwd*' 'st_phase*' 'st_staged*' 'st_add*' --jobs 6; echo "exit $?"; } > $OUT/selftest-181.txt 2>&1
tail -3 $OUT/selftest-181.txt
o=/tmp/o181; mkdir -p $o
step() { (time SKIP_BUILD=1 OUT=$o bash scripts/device_check.sh $1) > /tmp/o181-$1.txt 2>&1
         grep -E "^==|exit|rungs:|real|SUMMARY|copy ceiling" /tmp/o181-$1.txt | head -14
         rm -f $o/verify.txt; cp -r $o/. $OUT/ 2>/dev/null; }
step verify
step worst
step bench
cat /tmp/o181-verify.txt /tmp/o181-worst.txt /tmp/o181-bench.txt > $OUT/device_log_181.txt
# compute-sanitizer over the bf16 bulk_cluster rungs of the three ops (racecheck: one rung an op).
$B verify layernorm_bwd rmsnorm_bwd add_rmsnorm_bwd --dtype bf16 --no-fixtures --write-ladder /tmp/vc.json > /dev/null
for tool in memcheck racecheck; do
  extra=""; [ $tool = memcheck ] && extra="--bare-allocations"
  sel="*bulk_cluster*"; [ $tool = racecheck ] && sel="*_bf16_bulk_cluster_2_schedule_bulk *_bf16_bulk_cluster_2_dh_1_schedule_bulk"
  timeout 120 compute-sanitizer --tool $tool --target-processes all --print-limit 5 $B run --ladder /tmp/vc.json $sel --jobs 8 $extra > /tmp/san.txt 2>&1
  { echo "exit $?"; grep -E "RACECHECK SUMMARY|ERROR SUMMARY|rungs:|Hazard|Invalid|out of bounds|Program hit" /tmp/san.txt | sort | uniq -c; } > $OUT/$tool-cluster-181.txt
  echo "== $tool"; cat $OUT/$tool-cluster-181.txt
done
ls $OUT
echo "total $SECONDS s"
true
