#!/bin/bash
# Call 306 (and later calls by CALL). On an H200: call 294's program when END is 585 or more (the
# CuPy examples, the EARLY builds' A/B, the bench of record, the decode row's peers, the backward
# verify), else call 296's (the bench of record and the decode row's peers first, then the verify
# until END). On any other card: the six ops' verify rungs, forward first, until END (default
# 585), stopped by SIGINT so that a cut keeps what finished (verify_ops in call_env.sh).
# Carried: .device/ladder.xz (the checkout's build). Files go to $OUT.
set -u
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
if [[ $card == *H200* ]]; then
  if [ ${END:-585} -ge 585 ]; then exec bash reports/h200/device-calls/a294.sh; fi
  exec bash reports/h200/device-calls/a296.sh
fi
n=${CALL:-306}
source reports/h200/device-calls/call_env.sh $n
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc-cand
verify_every_rung $n ${END:-585}
cat $L
echo "total $SECONDS s"
