#!/bin/bash
# Call 196: call 195's device build failed one of its 26 isolation and CLI test cases, and the
# ten-minute limit cut its output to the summary. The same tests from the Debian build (Catch2
# v2), carried with its ladder binary, run here in full at the paths it was built with.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT /work
[ -e /work/main ] || ln -s "$PWD" /work/main
mkdir -p build && cp .device/ladder build/ladder && cp .device/ladder_tests build/ladder_tests
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc
cd /work/main
{ echo "# Call 196 ($LADDER_COMMIT, a196.sh)"
  timeout 400 ./build/ladder_tests "[isolation],[cli]" 2>&1 | tail -80
  echo "== again, with the list of cases and their times"
  timeout 150 ./build/ladder_tests "[isolation],[cli]" -d yes 2>&1 | grep -E "s: |passed|failed" | tail -40
} > $OUT/tests-196.txt 2>&1
cat $OUT/tests-196.txt
echo "total $SECONDS s"
true
