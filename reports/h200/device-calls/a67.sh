#!/bin/bash
# Call 67: the packed-span forward kernels (schedule=packed, kernels/packed_norm.cuh).
# 1. ladder verify of the three forward ops, every dtype (packed variants included);
# 2. racecheck and memcheck over the forward bf16 quick grid;
# 3. bench: schedule=packed against the planner's default at rows off the 16-byte grid, and
#    packed's ITEMS and row groups a block at bf16 16384x2049.
set -u
B=$PWD/.device/ladder
export LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p /tmp/o
stages=" ${*:-verify bench sweep sanitize} "
if [[ $stages == *" verify "* ]]; then
( time $B verify rmsnorm add_rmsnorm layernorm --no-fixtures --json /tmp/o/verify-packed.json --jobs 8 ) > /tmp/o/verify.txt 2>&1
grep -E "PASS|FAIL|UNRESOLVED|real" /tmp/o/verify.txt | grep -v "^ *[a-z_0-9]* .* PASS " | tail -8
grep -c " PASS " /tmp/o/verify.txt
fi
if [[ $stages == *" bench "* ]]; then
for op in rmsnorm add_rmsnorm layernorm; do for dt in bf16 f16 f32; do
  for sc in auto packed; do
    $B bench $op --dtype $dt --shape 16384x2049 --shape 8192x2049 --shape 16384x769 --shape 4096x5125 --variant schedule=$sc 2>&1 | grep " ladder" | sed "s/^/$sc /"
  done
done; done > /tmp/o/bench-packed.txt 2>&1
awk '{print $1,$2,$3,$4,$5,$8,$NF}' /tmp/o/bench-packed.txt | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1
fi
if [[ $stages == *" sweep "* ]]; then
for op in rmsnorm add_rmsnorm layernorm; do
  for it in 1 2 3 4; do
    [ $op = add_rmsnorm ] && [ $it = 4 ] && continue
    $B bench $op --dtype bf16 --shape 16384x2049 --variant schedule=packed --variant items=$it 2>&1 | grep " ladder" | sed "s/^/items$it /"
  done
  for rpb in 1 4; do
    $B bench $op --dtype bf16 --shape 16384x2049 --variant schedule=packed --variant rpb=$rpb 2>&1 | grep " ladder" | sed "s/^/rpb$rpb /"
  done
  $B bench $op --dtype bf16 --shape 16384x2049 --variant schedule=packed --variant span_rows=16 2>&1 | grep " ladder" | sed "s/^/span16 /"
done > /tmp/o/sweep-packed.txt 2>&1
awk '{print $1,$2,$3,$4,$5,$8,$NF}' /tmp/o/sweep-packed.txt
fi
if [[ $stages == *" ncu "* ]]; then
  for sc in auto packed; do
    echo "## rmsnorm bf16 16384x2049 schedule=$sc"
    timeout 120 ncu --target-processes all --clock-control none --launch-skip 3 --launch-count 1 -k regex:"^rmsnorm_fwd" \
      --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats --section SchedulerStats \
      --metrics l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__inst_executed.sum \
      $B bench rmsnorm --dtype bf16 --shape 16384x2049 --variant schedule=$sc --iters 5 2>&1 | grep -v "^==PROF==" | grep -E "^ +[A-Za-z]|##|rmsnorm_fwd" | grep -v -E "^ +-+$|Section:" | head -70
  done > /tmp/o/ncu-packed.txt 2>&1
  cat /tmp/o/ncu-packed.txt
fi
if [[ $stages == *" sanitize "* ]]; then
for tool in racecheck memcheck; do
  timeout 200 compute-sanitizer --tool $tool --target-processes all --print-limit 5 $B verify rmsnorm add_rmsnorm layernorm \
    --dtype bf16 --quick --no-fixtures --jobs 8 --timeout 60 > /tmp/san-$tool.txt 2>&1
  { echo "$tool exit $?"; grep -E "RACECHECK SUMMARY|ERROR SUMMARY|rungs:|Hazard|Invalid" /tmp/san-$tool.txt | sort | uniq -c; } | tee /tmp/o/sanitizer-packed-$tool.txt
done
fi
cp /tmp/o/*.json /tmp/o/*.txt $OUT/ 2>/dev/null
tar -C /tmp -czf $OUT/texts.tgz o san-racecheck.txt san-memcheck.txt
