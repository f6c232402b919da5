#!/bin/bash
# Call 306 (and later calls by CALL). On an H200 with END under 585 (too little time for a whole
# call): call 296's program (the bench of record and the decode row's peers first, then the
# verify until END). Otherwise a301.sh: on an H200 call 294's program (the CuPy examples, the
# EARLY builds' A/B, the bench of record, the decode row's peers, the backward verify), on any
# other card the six ops' verify rungs until END (default 585), stopped by SIGINT so that a cut
# keeps what finished (verify_ops in call_env.sh).
# Carried: .device/ladder.xz (the checkout's build). Files go to $OUT.
set -u
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
if [[ $card == *H200* && ${END:-585} -lt 585 ]]; then
  CALL=${CALL:-306} exec bash reports/h200/device-calls/a296.sh
fi
CALL=${CALL:-306} exec bash reports/h200/device-calls/a301.sh
