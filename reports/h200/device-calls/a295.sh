#!/bin/bash
# Call 295, on the machine call 294 left warm: every verify rung of the six ops and the fixtures
# (1077 on the H100, call 283), the forward's first run on an H200 since call 258.
# Carried: .device/ladder.xz (the checkout's build). Files go to $OUT.
set -u
source reports/h200/device-calls/call_env.sh 295
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc-cand
timeout $(left ${END:-585}) $B verify rmsnorm add_rmsnorm layernorm rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd --jobs 14 \
  --json $OUT/verify-295.json > $OUT/verify-295.txt 2>&1
echo "verify exit $? at $SECONDS s" >> $L
grep -E "rungs:" $OUT/verify-295.txt | tail -1 >> $L
grep -E " FAIL | UNRESOLVED | XPASS " $OUT/verify-295.txt | head -10 >> $L
gzip -f $OUT/verify-295.txt $OUT/verify-295.json
cat $L
echo "total $SECONDS s"
