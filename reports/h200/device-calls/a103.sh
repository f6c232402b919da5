#!/bin/bash
# Call 103: add_rmsnorm's relay schedule (add_rmsnorm_fwd_relay: one row in registers while the
# next is copied into a shared-memory stage) against the planner's choice (the staged-weight
# wide build), bf16 and f16 at 512x32768 and 2048x32768, two repeats, cold; then verify
# add_rmsnorm (its relay rungs among them) and racecheck and memcheck (bare allocations) over the
# bf16 relay rungs of the quick grid. Time-boxed to fit the session's last device minutes.
set -u
B=$PWD/.device/ladder
export LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p /tmp/o $OUT
for rep in 1 2; do
  for sc in auto relay; do
    for dt in bf16 f16; do
      timeout 40 $B bench add_rmsnorm --dtype $dt --shape 512x32768 --shape 2048x32768 --variant schedule=$sc 2>&1 | grep " ladder" | sed "s/^/$sc /"
    done
  done
done > /tmp/o/bench-relay.txt 2>&1
awk '{print $1,$2,$3,$4,$5,$8,$NF}' /tmp/o/bench-relay.txt | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1
cp /tmp/o/bench-relay.txt $OUT/
timeout 110 $B verify add_rmsnorm --jobs 14 > /tmp/o/verify-relay-full.txt 2>&1; echo "verify exit $?"
grep -E "FAIL|UNRESOLVED|rungs:" /tmp/o/verify-relay-full.txt | head -12 | tee /tmp/o/verify-relay.txt
grep -E "relay" /tmp/o/verify-relay-full.txt | head -12 >> /tmp/o/verify-relay.txt
cp /tmp/o/verify-relay.txt $OUT/
$B verify add_rmsnorm --dtype bf16 --quick --no-fixtures --write-ladder /tmp/relay.json > /dev/null 2>&1
for tool in racecheck memcheck; do
  extra=""; [ $tool = memcheck ] && extra="--bare-allocations"
  timeout 40 compute-sanitizer --tool $tool --target-processes all --print-limit 5 $B run 'add_rmsnorm_bf16*relay*' --ladder /tmp/relay.json $extra --jobs 8 > /tmp/san-$tool.txt 2>&1
  { echo "## $tool exit $?"; grep -E "RACECHECK SUMMARY|ERROR SUMMARY|rungs:|Hazard|Invalid|out of bounds" /tmp/san-$tool.txt | sort | uniq -c; } | tee -a /tmp/o/sanitizer-relay.txt
done
cp /tmp/o/sanitizer-relay.txt $OUT/
true
