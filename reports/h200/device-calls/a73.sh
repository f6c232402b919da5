#!/bin/bash
# Call 73 (commit 30010ac): the device's own build (cmake, nvcc, Catch2 v3) and ctest with the gpu
# label; the output lines are kept in reports/h200/device-tests.txt.
export LADDER_COMMIT=30010ac
(time OUT=/tmp/o bash scripts/device_check.sh tests) > $OUT/device-tests-raw.txt 2>&1
tail -30 $OUT/device-tests-raw.txt
