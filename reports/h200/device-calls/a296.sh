#!/bin/bash
# Call 296 (and later calls by CALL), for an H200, when too little device time is left for calls
# 294 and 295: the bench of record (bench.json), the decode row's peers, then every verify rung of
# the six ops and the fixtures (forward first) until END (default 590). On any other card it
# prints the card and exits before anything runs. What it leaves out (the EARLY A/B, the CuPy
# blocks) is call 294's.
# Carried: .device/ladder.xz (the checkout's build). Files go to $OUT.
set -u
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
if [[ $card != *H200* ]]; then echo "$card: not an H200, nothing run"; exit 0; fi
n=${CALL:-296}
source reports/h200/device-calls/call_env.sh $n
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc-cand
timeout $(left 120) $B bench --json $OUT/bench.json > $OUT/bench-$n.txt 2>&1; echo "bench exit $? at $SECONDS s" >> $L
grep -E "copy ceiling" $OUT/bench-$n.txt >> $L
timeout $(left 160) python3 scripts/bench_peers.py --only add_rmsnorm --shape 1x4096 --cache cold \
  --json $OUT/peers-decode-$n.json > $OUT/peers-decode-$n.txt 2>&1; echo "peers exit $? at $SECONDS s" >> $L
(cd $OUT && tar czf /tmp/r.tgz bench.json bench-$n.txt peers-decode-$n.* && rm -f bench.json bench-$n.txt peers-decode-$n.* && mv /tmp/r.tgz call-$n-record.tgz)
verify_every_rung $n ${END:-590}
cat $L
echo "total $SECONDS s"
