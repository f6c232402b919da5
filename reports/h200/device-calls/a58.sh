#!/bin/bash
# Call 58 (commit 1ed7bd2): the report's evidence set on the final kernels.
set -u
export LADDER_COMMIT=1ed7bd2
SKIP_BUILD=1 OUT=/tmp/o bash scripts/device_check.sh verify worst bench peers ladders sanitizebwd decode
cp /tmp/o/*.json $OUT/
tar -C /tmp -czf $OUT/texts.tgz o/verify-worst.txt o/sanitizer-bwd.txt o/verify.txt o/ncu-decode.txt
