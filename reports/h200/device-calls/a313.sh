#!/bin/bash
# Call 313 (and later calls by CALL), on the machine call 311 left warm: compute-sanitizer over
# the forward RMSNorm ops' bf16 quick rungs (rmsnorm and add_rmsnorm): memcheck with exact
# allocations (--bare-allocations) until MEM_END (default 200), then racecheck until END
# (default 420). A cut goes to the runner (ladder_ops), so it keeps what finished.
# Carried: .device/ladder.xz (the checkout's build). Files go to $OUT.
set -u
n=${CALL:-313}
source reports/h200/device-calls/call_env.sh $n
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc-san
VERIFY_UNDER="$sanitizer memcheck" verify_ops memcheck-rms-$n ${MEM_END:-200} rmsnorm add_rmsnorm \
  --dtype bf16 --quick --no-fixtures --bare-allocations
VERIFY_UNDER="$sanitizer racecheck" verify_ops racecheck-rms-$n ${END:-420} rmsnorm add_rmsnorm \
  --dtype bf16 --quick --no-fixtures
cat $L
echo "total $SECONDS s"
