#!/bin/bash
# Call 305, for a call with less device time left than a whole verify takes. On an H200 it runs
# call 296's program (the bench of record and the decode row's peers first, then the verify until
# END). On any other card: every verify rung of the three backward ops, whose column reduce's
# planner moved to plan_column_sum.cpp in round 59, until second BWD_END (default 330), then the
# forward ops' until END (default 585). A rung the timeout cuts is kept UNRESOLVED with how far it
# got; the rungs that finished keep their verdicts.
# Carried: .device/ladder.xz (the checkout's build). Files go to $OUT.
set -u
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
if [[ $card == *H200* ]]; then exec bash reports/h200/device-calls/a296.sh; fi
source reports/h200/device-calls/call_env.sh 305
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc-cand
verify_ops verify-bwd-305 ${BWD_END:-330} rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd
verify_ops verify-fwd-305 ${END:-585} rmsnorm add_rmsnorm layernorm
cat $L
echo "total $SECONDS s"
