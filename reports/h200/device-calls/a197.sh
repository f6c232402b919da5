#!/bin/bash
# Call 197: the device's own build (cmake, nvcc, Catch2 v3) again, and its isolation and CLI tests
# in full, to name the one case call 195 saw fail (26 cases ran there; the Debian build ran all 44
# and passed on this machine in call 196).
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc LADDER_BUILD_DIR=$PWD/build-device
{ echo "# Call 197 ($LADDER_COMMIT, a197.sh)"
  (time timeout 170 scripts/build) 2>&1 | grep -E "error|real"
  timeout $((235-SECONDS)) ./build-device/ladder_tests "[isolation],[cli]" 2>&1 | grep -v "^\s*$" | tail -70
} > $OUT/tests-197.txt 2>&1
cat $OUT/tests-197.txt
echo "total $SECONDS s"
true
