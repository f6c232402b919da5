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
bench_of_record $n
verify_every_rung $n ${END:-590}
cat $L
echo "total $SECONDS s"
