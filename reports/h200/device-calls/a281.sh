#!/bin/bash
# Call 281. add_rmsnorm_bwd's L2 request for the next row is now its EARLY build, which the
# planner gives by the same rule as rmsnorm_bwd's (16-bit one-tile rows in blocks of 256 threads
# or more, where the DRAM gives an SM 15 bytes a cycle or more) instead of a run-time test of
# the block in every 16-bit build. 1. add_rmsnorm_bwd and rmsnorm_bwd bf16 16384x4096 and
# 8192x8192, early=0 against early=1, cold, two rounds, on the whole GPU and at --sms 96, with
# the build auto runs at each. 2. Every add_rmsnorm_bwd verify rung (three early=1 variants
# among them) on the whole GPU. On an H200 the same (its whole GPU is the rule's case).
# Carried: .device/ladder.xz (the checkout's build).
set -u
source reports/h200/device-calls/call_env.sh 281
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc-cand
{ for rep in 1 2; do
    for s in 0 96; do
      a=""; [ $s = 0 ] || a="--sms $s"
      for e in 0 1; do
        tree=late; [ $e = 1 ] && tree=early
        timeout 60 $B bench add_rmsnorm_bwd rmsnorm_bwd --dtype bf16 --shape 16384x4096 8192x8192 $a --variant early=$e \
          --json $OUT/ab-$tree$s-$rep.json 2>&1 | grep -E " ladder |rror" | sed "s/^/[$tree sms$s $rep] /"
      done
      [ $rep = 1 ] && timeout 60 $B bench add_rmsnorm_bwd rmsnorm_bwd --dtype bf16 --shape 16384x4096 $a \
        --json $OUT/auto-$s.json 2>&1 | grep -E " ladder |rror" | sed "s/^/[auto sms$s] /"
    done
  done
} > $OUT/ab-281.txt 2>&1
python3 reports/h200/device-calls/ab_summary.py $OUT late0 early0 late96 early96 > $OUT/ab-281-summary.txt
cat $OUT/ab-281-summary.txt >> $L
python3 - $OUT/auto-0.json $OUT/auto-96.json >> $L <<'PY'
import json, sys
for p in sys.argv[1:]:
    d = json.load(open(p)); t = d["toolchain"]
    print("auto on", t.get("sm_count"), "SMs,", round(t.get("dram_bytes_per_sm_cycle", 0), 2), "bytes a cycle an SM:",
          [(r["op"], r.get("cold_us"), [k.get("entry") for k in r.get("kernels", [])][:1]) for r in d["results"] if r.get("impl") == "ladder"])
PY
timeout 200 $B verify add_rmsnorm_bwd --jobs 14 > $OUT/verify-add-bwd-281.txt 2>&1
echo "verify exit $? at $SECONDS s" >> $L
grep -E "rungs:" $OUT/verify-add-bwd-281.txt | tail -1 >> $L
grep -E " FAIL | UNRESOLVED | XPASS " $OUT/verify-add-bwd-281.txt | head -10 >> $L
(cd $OUT && tar czf /tmp/a.tgz ab-*.json auto-*.json ab-281.txt verify-add-bwd-281.txt && rm -f ab-*.json auto-*.json ab-281.txt verify-add-bwd-281.txt && mv /tmp/a.tgz call-281.tgz)
cat $L
echo "total $SECONDS s"
