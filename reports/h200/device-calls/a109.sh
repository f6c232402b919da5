#!/bin/bash
# Call 109: add_rmsnorm_fwd_row (kernels/decode_norm.cuh: one row a block of 512 threads at eight
# chunks, h = x + r kept in fp32 between the passes, chunk addresses a constant apart, the weight
# staged), which auto now takes where the wide build filled its bound (16-bit rows of
# 28673..32768), against that wide build (schedule=wide), one binary, two repeats; Nsight
# Compute of both at 512x32768; then verify add_rmsnorm (the row variants included), memcheck
# and racecheck over its bf16 rungs, and, for the report, bench and the peers in full.
set -u
B=$PWD/.device/ladder
export LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p /tmp/o $OUT
for rep in 1 2; do
  for sc in wide auto; do
    for dt in bf16 f16; do
      timeout 100 $B bench add_rmsnorm --dtype $dt --shape 512x32768 --shape 1024x32768 --shape 2048x32768 \
        --shape 4096x30720 --variant schedule=$sc 2>&1 | grep " ladder" | sed "s/^/$sc /"
    done
  done
done > /tmp/o/bench-row.txt 2>&1
sort -k3,3 -k4,4n -k5,5n -k1,1 /tmp/o/bench-row.txt | awk '{print $1,$3,$4,$5,$7,$8,$NF}'
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum
for sc in wide auto; do
  echo "## add_rmsnorm bf16 512x32768 schedule=$sc, caches flushed (launches 3-4)"
  timeout 90 ncu --target-processes all --clock-control none --cache-control all --metrics $M \
    -k regex:"^add_rmsnorm_fwd" --launch-skip 2 --launch-count 2 $B bench add_rmsnorm --dtype bf16 --shape 512x32768 --iters 5 --variant schedule=$sc 2>&1 | grep -E "add_rmsnorm_fwd|^ +(gpu|dram|launch|sm__|smsp)"
done | tee /tmp/o/ncu-row.txt
cp /tmp/o/bench-row.txt /tmp/o/ncu-row.txt $OUT/
timeout 200 $B verify add_rmsnorm --jobs 14 > /tmp/o/verify-row-full.txt 2>&1; echo "verify exit $?"
grep -E "FAIL|UNRESOLVED|XPASS|rungs:" /tmp/o/verify-row-full.txt | head -20 | tee /tmp/o/verify-row.txt
grep -E "schedule_row" /tmp/o/verify-row-full.txt | head -12
for tool in memcheck racecheck; do
  extra=""; [ $tool = memcheck ] && extra=--bare-allocations
  timeout 170 compute-sanitizer --tool $tool --target-processes all --print-limit 5 $B verify add_rmsnorm --dtype bf16 --quick --no-fixtures --jobs 8 --timeout 120 $extra > /tmp/san.txt 2>&1
  { echo "## $tool, ladder verify add_rmsnorm --dtype bf16 --quick --no-fixtures $extra: exit $?"; grep -E "RACECHECK SUMMARY|ERROR SUMMARY|rungs:|Hazard|Invalid|out of bounds|Program hit" /tmp/san.txt | sort | uniq -c; } | tee -a /tmp/o/sanitizer-row.txt
done
cp /tmp/o/verify-row.txt /tmp/o/sanitizer-row.txt $OUT/
(time SKIP_BUILD=1 PEERS_TIMEOUT=150 OUT=/tmp/o2 bash scripts/device_check.sh bench peers) > /tmp/o-bp.txt 2>&1
grep -E "^==|exit|real" /tmp/o-bp.txt
tar -czf $OUT/evidence109.tgz -C /tmp/o2 bench.json peers.json
tar -czf $OUT/verify109.tgz -C /tmp/o verify-row-full.txt
true
