#!/bin/bash
# Call 292. compute-sanitizer over the backward register kernels as round 55 left them, the
# EARLY builds among them (their 7 `early=1` rungs; auto takes the late builds on an H100):
# memcheck with exact allocations (--bare-allocations: a read or write past a buffer is an
# error, the L2 requests' addresses included), then racecheck, over every bf16 quick rung of
# rmsnorm_bwd and add_rmsnorm_bwd (81 rungs), each with the time its budget leaves.
# Carried: .device/ladder.xz (the checkout's build). Files go to $OUT.
set -u
source reports/h200/device-calls/call_env.sh 292
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc-san
run_tool() {  # TOOL SECONDS EXTRA...
  local tool=$1 limit=$2; shift 2
  timeout $limit compute-sanitizer --tool $tool --target-processes all --print-limit 5 \
    $B verify rmsnorm_bwd add_rmsnorm_bwd --dtype bf16 --quick --no-fixtures --jobs 14 "$@" \
    --json $OUT/$tool-292.json > $OUT/$tool-292.txt 2>&1
  echo "$tool exit $? at $SECONDS s" >> $L
  { grep -E "ERROR SUMMARY|RACECHECK SUMMARY|Hazard|Invalid|out of bounds" $OUT/$tool-292.txt | sort | uniq -c
    grep -E "rungs:" $OUT/$tool-292.txt | tail -1
    grep -E " FAIL | UNRESOLVED " $OUT/$tool-292.txt | head -5
    grep -E "early_1" $OUT/$tool-292.txt | head -8; } >> $L
}
run_tool memcheck 150 --bare-allocations
run_tool racecheck $(left 320)
cat $L
echo "total $SECONDS s"
