#!/bin/bash
# Call 141: the evidence for main as it stands (auto streaming RMSNorm 16-bit rows of 2048
# chunks; the streamed RMSNorm's 1536 / THREADS bound), on the carried binary: verify (every op,
# dtype and variant, fixtures included) and its worst-error tables, bench, the peers beside it;
# the device's own cmake/nvcc/Catch2 v3 build (in the background during verify) and its ctest
# (gpu label included); where the time allows, memcheck (bare allocations) over the bf16 RMSNorm
# rungs of loop-ladder.json (the streamed RMSNorm's 1536 / THREADS builds). Files go to $OUT as
# each step ends, so a run cut short keeps what finished.
set -u
export LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=${LADDER_COMMIT:?} LADDER_KERNELS_DIR=$PWD/kernels
o=/tmp/o141; mkdir -p $o $OUT
export LADDER_BUILD_DIR=$PWD/build-device
( { time scripts/build; } > /tmp/build141.txt 2>&1 ) &
bp=$!
step() { (time SKIP_BUILD=1 PEERS_TIMEOUT=90 OUT=$o bash scripts/device_check.sh $1) > /tmp/o141-$1.txt 2>&1
         grep -E "^==|exit|rungs:|real|SUMMARY|overhead|copy ceiling" /tmp/o141-$1.txt | head -14
         cp -r $o/. $OUT/ 2>/dev/null; }
step verify
step worst
wait $bp; grep -E "error|real" /tmp/build141.txt | head
step bench
step peers
cat /tmp/o141-verify.txt /tmp/o141-worst.txt /tmp/o141-bench.txt /tmp/o141-peers.txt > $OUT/device_log.txt
{ echo "== build on the device machine"; grep real /tmp/build141.txt; nvidia-smi --query-gpu=name,driver_version --format=csv;
  echo "== ctest (gpu label included)"; (cd build-device && time timeout $((585-SECONDS)) ctest --output-on-failure 2>&1 | tail -15); } > $OUT/device-tests.txt 2>&1
grep -E "tests passed|Passed|Failed|real" $OUT/device-tests.txt
if [ $SECONDS -lt 480 ]; then
  python3 -c "
import json; d=json.load(open('reports/h200/loop-ladder.json'))
d['rungs']=[r for r in d['rungs'] if r['kernel']['dtype']=='bf16' and r['kernel']['op']=='rmsnorm']
json.dump(d,open('/tmp/loop-rms-bf16.json','w'))"
  timeout $((590-SECONDS)) compute-sanitizer --tool memcheck --target-processes all --print-limit 5 $PWD/.device/ladder run --ladder /tmp/loop-rms-bf16.json --bare-allocations --jobs 4 --timeout 200 > /tmp/mc141.txt 2>&1
  { echo "exit $?"; grep -E "ERROR SUMMARY|rungs:|Invalid|out of bounds" /tmp/mc141.txt | sort | uniq -c; } | tee $OUT/memcheck-loop-141.txt
else echo "memcheck skipped at $SECONDS s"; fi
echo "total $SECONDS s"
true
