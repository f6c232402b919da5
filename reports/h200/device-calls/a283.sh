#!/bin/bash
# Call 283. On an H200: call 282's program (a282.sh: the EARLY builds' A/B on the whole GPU, the
# bench of record, the decode row's peers, every backward verify rung). On any other card, the
# record of the checkout's build on that card: the bench of record (whole GPU), the decode row's
# peers, then every verify rung of every kernel (forward first) with the time left.
# Carried: .device/ladder.xz (the checkout's build). Files go to $OUT.
set -u
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
if [[ $card == *H200* ]]; then exec bash reports/h200/device-calls/a282.sh; fi
source reports/h200/device-calls/call_env.sh 283
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc-cand
timeout $(left 120) $B bench --json $OUT/bench-283.json > $OUT/bench-283.txt 2>&1; echo "bench exit $? at $SECONDS s" >> $L
grep -E "copy ceiling" $OUT/bench-283.txt >> $L
timeout $(left 160) python3 scripts/bench_peers.py --only add_rmsnorm --shape 1x4096 --cache cold \
  --json $OUT/peers-decode-283.json > $OUT/peers-decode-283.txt 2>&1; echo "peers exit $? at $SECONDS s" >> $L
(cd $OUT && tar czf /tmp/r.tgz bench-283.* peers-decode-283.* && rm -f bench-283.* peers-decode-283.* && mv /tmp/r.tgz call-283-record.tgz)
timeout $(left 580) $B verify rmsnorm add_rmsnorm layernorm rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd --jobs 14 \
  --json $OUT/verify-283.json > $OUT/verify-283.txt 2>&1
echo "verify exit $? at $SECONDS s" >> $L
grep -E "rungs:" $OUT/verify-283.txt | tail -1 >> $L
grep -E " FAIL | UNRESOLVED | XPASS " $OUT/verify-283.txt | head -10 >> $L
gzip -f $OUT/verify-283.txt $OUT/verify-283.json
cat $L
echo "total $SECONDS s"
