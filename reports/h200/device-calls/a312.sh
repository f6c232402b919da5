#!/bin/bash
# Call 312 (and later calls by CALL), on the machine call 311 left warm: memcheck with exact
# allocations (--bare-allocations: no redzones, so a read or write just past a buffer is the
# sanitizer's error) over every bf16 quick rung of layernorm_bwd (42), until END (default 330).
# Carried: .device/ladder.xz (the checkout's build). Files go to $OUT.
set -u
n=${CALL:-312}
source reports/h200/device-calls/call_env.sh $n
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc-san
VERIFY_UNDER="$sanitizer memcheck" verify_ops memcheck-ln-bwd-$n ${END:-330} layernorm_bwd \
  --dtype bf16 --quick --no-fixtures --bare-allocations
cat $L
echo "total $SECONDS s"
