#!/bin/bash
# Call 102: the device's own build (cmake, nvcc, Catch2 v3) and ctest with the gpu label (call
# 101's run failed one new GPU test on a test bug: it kept a pointer into a temporary run
# document), then bench, peers and verify again on the carried binary with the commit given
# literally (calls 100-101 computed LADDER_COMMIT on the device, whose copy's git metadata named
# an older commit). Each step's files land in $OUT as soon as it ends.
set -u
export LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p /tmp/o $OUT
(time OUT=/tmp/o2 bash scripts/device_check.sh tests) > /tmp/o-tests.txt 2>&1
tail -12 /tmp/o-tests.txt; cp /tmp/o-tests.txt $OUT/device-tests-raw.txt
(time SKIP_BUILD=1 OUT=/tmp/o bash scripts/device_check.sh bench) > /tmp/o-bench.txt 2>&1
grep -E "^==|real" /tmp/o-bench.txt; cp /tmp/o/bench.json $OUT/
(time SKIP_BUILD=1 PEERS_TIMEOUT=150 OUT=/tmp/o bash scripts/device_check.sh peers) > /tmp/o-peers.txt 2>&1
grep -E "^==|exit|real|32768" /tmp/o-peers.txt; cp /tmp/o/peers.json $OUT/
(time SKIP_BUILD=1 OUT=/tmp/o timeout 200 bash scripts/device_check.sh verify worst) > /tmp/o-verify.txt 2>&1
grep -E "^==|exit|rungs:|real" /tmp/o-verify.txt
cat /tmp/o-tests.txt /tmp/o-bench.txt /tmp/o-peers.txt /tmp/o-verify.txt > /tmp/o/device_log.txt
tar -czf $OUT/evidence3.tgz -C /tmp/o .
true
