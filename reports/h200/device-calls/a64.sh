#!/bin/bash
# Call 64 (commit 9806254): the report's evidence set on the batched-weight kernels and planner (forward racecheck
# included: the forward kernels changed; the backward kernels are byte-identical to call 58's).
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
SKIP_BUILD=1 OUT=/tmp/o bash scripts/device_check.sh verify worst bench peers ladders sanitize decode
cp /tmp/o/*.json $OUT/
tar -C /tmp -czf $OUT/texts.tgz o/verify-worst.txt o/sanitizer-wide.txt o/verify.txt o/ncu-decode.txt
