#!/bin/bash
# Call 96: ladder sweep on the demo kernel and on the production rmsnorm (p8), a reproducer of p8
# built and run here, the device's own build and ctest with the gpu label (sweep, repro, bisect,
# bare allocations among the GPU tests), then racecheck over the forward and backward bf16 rungs
# on main's final kernels.
set -u
B=$PWD/.device/ladder
export LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p /tmp/o $OUT
$B sweep st_vector_tail --ladder probes/sweep_demo.json --dim rows=1..4 --dim d=1..24 --json /tmp/o/sweep-demo.json > /tmp/o/sweep-demo.txt 2>&1; echo "sweep demo exit $?" | tee -a /tmp/o/sweep-demo.txt
sed -n '/envelope of/,$p' /tmp/o/sweep-demo.txt | head -12
$B sweep p8_production_kernel --dim rows=1..8 --dim d=1..128 --jobs 8 --json /tmp/o/sweep-p8.json > /tmp/o/sweep-p8.txt 2>&1; echo "sweep p8 exit $?" | tee -a /tmp/o/sweep-p8.txt
tail -3 /tmp/o/sweep-p8.txt
rm -rf /tmp/rp && $B repro p8_production_kernel --case 3 --out /tmp/rp > /tmp/o/repro-demo.txt 2>&1 && (cd /tmp/rp && ./build.sh && ./repro) >> /tmp/o/repro-demo.txt 2>&1; echo "repro exit $?" | tee -a /tmp/o/repro-demo.txt
tail -6 /tmp/o/repro-demo.txt
(time OUT=/tmp/o2 bash scripts/device_check.sh tests) > /tmp/o-tests.txt 2>&1
tail -14 /tmp/o-tests.txt
cp /tmp/o/sweep-demo.txt /tmp/o/sweep-p8.txt /tmp/o/repro-demo.txt $OUT/; cp /tmp/o-tests.txt $OUT/device-tests-raw.txt
(time SKIP_BUILD=1 OUT=/tmp/o bash scripts/device_check.sh sanitize sanitizebwd) > /tmp/o-san.txt 2>&1
grep -E "^==|exit|rungs:|RACECHECK|real" /tmp/o-san.txt | head -20
cp /tmp/o/sanitizer-wide.txt /tmp/o/sanitizer-bwd.txt $OUT/ 2>/dev/null; cp /tmp/o-san.txt $OUT/device_log_sanitize.txt
true
