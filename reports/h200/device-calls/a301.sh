#!/bin/bash
# Call 301 (and later calls by CALL). On an H200 it runs call 294's program (the README's CuPy examples, the EARLY builds'
# A/B, the bench of record, the decode row's peers, the backward verify until END). On any other
# card it runs what the current build still lacks on a GPU: every verify rung of the six ops and
# the fixtures (1077 on call 283's build, the last whole verify) until second END (default 585).
# Carried: .device/ladder.xz (the checkout's build). Files go to $OUT.
set -u
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
if [[ $card == *H200* ]]; then exec bash reports/h200/device-calls/a294.sh; fi
n=${CALL:-301}
source reports/h200/device-calls/call_env.sh $n
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc-cand
verify_every_rung $n ${END:-585}
cat $L
echo "total $SECONDS s"
