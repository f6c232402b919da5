#!/bin/bash
# Call 295, on the machine call 294 left warm: every verify rung of the six ops and the fixtures
# (1077 on the H100, call 283), the forward's first run on an H200 since call 258.
# Carried: .device/ladder.xz (the checkout's build). Files go to $OUT.
set -u
source reports/h200/device-calls/call_env.sh 295
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc-cand
verify_every_rung 295 ${END:-585}
cat $L
echo "total $SECONDS s"
