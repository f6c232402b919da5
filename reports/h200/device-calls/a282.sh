#!/bin/bash
# Call 282, for an H200 (prepared in round 55; no H200 came then). 1. The EARLY builds where
# the planner's rule gives them on the H200 (18.4 DRAM bytes a cycle an SM): rmsnorm_bwd and
# add_rmsnorm_bwd bf16 16384x4096, 8192x8192 and 4096x8192, early=0 against early=1, cold,
# three rounds, the whole GPU: the H200's own verdict on what the stand-in (an H100 at 96 SMs)
# measured 0.91-0.97. 2. The bench of record (bench.json) on the checkout's build. 3. The
# decode row's peers. 4. Every backward verify rung with the time left. On any other card it
# prints the card and times nothing.
# Carried: .device/ladder.xz (the checkout's build). Files go to $OUT. END (default 575): the
# second at which the verify stops, for a call with less device time left.
set -u
source reports/h200/device-calls/call_env.sh 282
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc-cand
if [[ $card != *H200* ]]; then cat $L; echo "not an H200: nothing timed"; exit 0; fi
{ for rep in 1 2 3; do
    for e in 0 1; do
      tree=late; [ $e = 1 ] && tree=early
      timeout 60 $B bench rmsnorm_bwd add_rmsnorm_bwd --dtype bf16 --shape 16384x4096 --shape 8192x8192 --shape 4096x8192 \
        --variant early=$e --json $OUT/ab-$tree-$rep.json 2>&1 | grep -E " ladder |rror" | sed "s/^/[$tree $rep] /"
    done
  done
} > $OUT/ab-282.txt 2>&1
python3 reports/h200/device-calls/ab_summary.py $OUT late early > $OUT/ab-282-summary.txt
cat $OUT/ab-282-summary.txt >> $L
(cd $OUT && tar czf /tmp/a.tgz ab-*.json ab-282.txt && rm -f ab-*.json ab-282.txt && mv /tmp/a.tgz call-282-ab.tgz)
timeout $(left 340) $B bench --json $OUT/bench.json > $OUT/bench-282.txt 2>&1; echo "bench exit $? at $SECONDS s" >> $L
grep -E "copy ceiling" $OUT/bench-282.txt >> $L
timeout $(left 400) python3 scripts/bench_peers.py --only add_rmsnorm --shape 1x4096 --cache cold \
  --json $OUT/peers-decode-282.json > $OUT/peers-decode-282.txt 2>&1; echo "peers exit $? at $SECONDS s" >> $L
(cd $OUT && tar czf /tmp/r.tgz bench-282.txt peers-decode-282.* && rm -f bench-282.txt peers-decode-282.* && mv /tmp/r.tgz call-282-record.tgz)
timeout $(left ${END:-575}) $B verify rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd --jobs 14 > $OUT/verify-bwd-282.txt 2>&1
echo "verify (backward) exit $? at $SECONDS s" >> $L
grep -E "rungs:" $OUT/verify-bwd-282.txt | tail -1 >> $L
grep -E " FAIL | UNRESOLVED | XPASS " $OUT/verify-bwd-282.txt | head -10 >> $L
gzip -f $OUT/verify-bwd-282.txt
cat $L
echo "total $SECONDS s"
