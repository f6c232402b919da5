#!/bin/bash
# Call 297. On an H200 it runs call 296's program (the bench of record, the decode row's peers,
# every verify rung until END). On any other card it gives the current harness (stop 63's
# runner change: one read of the stop flag) its GPU evidence in about two minutes: the built-in
# ladders (probes/ladder.json and probes/selftest.json, every failure class red on purpose) with
# the isolation overhead against bare context creation, then a verify cut by SIGINT, whose JSON
# must keep the rungs that finished.
# CALL names the call in its files (default 297; call 303 ran it as 303).
# Carried: .device/ladder.xz (the checkout's build). Files go to $OUT.
set -u
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
if [[ $card == *H200* ]]; then exec bash reports/h200/device-calls/a296.sh; fi
n=${CALL:-297}
source reports/h200/device-calls/call_env.sh $n
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc-cand
timeout 150 $B run --jobs 8 --measure-overhead 20 --json $OUT/run-$n.json > $OUT/run-$n.txt 2>&1
echo "ladder run exit $? at $SECONDS s" >> $L
grep -E "rungs:|overhead|context" $OUT/run-$n.txt | tail -6 >> $L
timeout -s INT 25 $B verify rmsnorm layernorm --jobs 6 --json $OUT/verify-cut-$n.json > $OUT/verify-cut-$n.txt 2>&1
echo "verify cut by SIGINT after 25 s: exit $? at $SECONDS s" >> $L
grep -E "rungs:|nterrupt" $OUT/verify-cut-$n.txt | tail -3 >> $L
python3 - $OUT/verify-cut-$n.json >> $L 2>&1 <<'PY'
import json, sys, collections
doc = json.load(open(sys.argv[1]))
rungs = doc["rungs"]
print("JSON after the cut: interrupted", doc["interrupted"], "finished", doc["finished"], "|", len(rungs),
      "rungs,", dict(collections.Counter(r["verdict"] for r in rungs)), "| counts", doc["counts"])
PY
cat $L
echo "total $SECONDS s"
