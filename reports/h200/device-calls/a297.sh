#!/bin/bash
# Call 297. On an H200 it runs call 296's program (the bench of record, the decode row's peers,
# every verify rung until END). On any other card it gives the current harness (stop 63's
# runner change: one read of the stop flag) its GPU evidence in about two minutes: the built-in
# ladders (probes/ladder.json and probes/selftest.json, every failure class red on purpose) with
# the isolation overhead against bare context creation, then a verify cut by SIGINT, whose JSON
# must keep the rungs that finished.
# CALL names the call in its files (default 297; call 303 ran it as 303).
# Carried: .device/ladder.xz (the checkout's build). Files go to $OUT.
set -u
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
if [[ $card == *H200* ]]; then exec bash reports/h200/device-calls/a296.sh; fi
source reports/h200/device-calls/call_env.sh ${CALL:-297}
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc-cand
ladders_and_cut ${CALL:-297}
cat $L
echo "total $SECONDS s"
