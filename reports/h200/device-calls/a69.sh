#!/bin/bash
# Call 69: the packed-span forward kernels, staged flat design (kernels/packed_norm.cuh: a span of
# packed rows as one flat array on the 16-byte grid through two cp.async stages, shifted weight
# copies in shared memory).
# Stages: verify (forward ops, every dtype), bench (schedule=packed against the default),
# sweep (packed_threads and span_rows at bf16 16384x2049), ncu (rmsnorm bf16 16384x2049).
set -u
B=$PWD/.device/ladder
export LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p /tmp/o
stages=" ${*:-verify bench sweep} "
if [[ $stages == *" verify "* ]]; then
  ( time $B verify rmsnorm add_rmsnorm layernorm --no-fixtures --json /tmp/o/verify-packed.json --jobs 8 ) > /tmp/o/verify.txt 2>&1
  grep -E "FAIL|UNRESOLVED|rungs:|real" /tmp/o/verify.txt | tail -8
fi
if [[ $stages == *" bench "* ]]; then
  for op in rmsnorm add_rmsnorm layernorm; do for dt in bf16 f16 f32; do for sc in auto packed; do
    $B bench $op --dtype $dt --shape 16384x2049 --shape 8192x2049 --shape 16384x769 --shape 4096x5125 --variant schedule=$sc 2>&1 | grep " ladder" | sed "s/^/$sc /"
  done; done; done > /tmp/o/bench-packed.txt 2>&1
  awk '{print $1,$2,$3,$4,$5,$8,$NF}' /tmp/o/bench-packed.txt | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1
fi
if [[ $stages == *" sweep "* ]]; then
  for op in rmsnorm add_rmsnorm layernorm; do
    for nt in 128 256 1024; do
      $B bench $op --dtype bf16 --shape 16384x2049 --variant schedule=packed --variant packed_threads=$nt 2>&1 | grep " ladder" | sed "s/^/threads$nt /"
    done
    for sp in 8 16 32; do
      $B bench $op --dtype bf16 --shape 16384x2049 --variant schedule=packed --variant span_rows=$sp 2>&1 | grep " ladder" | sed "s/^/span$sp /"
    done
  done > /tmp/o/sweep-packed.txt 2>&1
  awk '{print $1,$2,$3,$4,$5,$8,$NF}' /tmp/o/sweep-packed.txt
fi
if [[ $stages == *" ncu "* ]]; then
  for sc in auto packed; do
    echo "## rmsnorm bf16 16384x2049 schedule=$sc"
    timeout 120 ncu --target-processes all --clock-control none --launch-skip 3 --launch-count 1 -k regex:"^rmsnorm_fwd" \
      --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats --section SchedulerStats \
      --metrics l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,smsp__inst_executed.sum \
      $B bench rmsnorm --dtype bf16 --shape 16384x2049 --variant schedule=$sc --iters 5 2>&1 | grep -v "^==PROF==" | grep -E "^ +[A-Za-z]|##|rmsnorm_fwd" | grep -v -E "^ +-+$|Section:|OPT|WRN|^ {10}" | head -60
  done > /tmp/o/ncu-packed.txt 2>&1
  grep -E "##|Duration|DRAM Through|Registers|Issued Warp|inst_executed|bank_conflicts|Achieved Active|Block Limit Reg|Block Limit Shared|Grid Size|Block Size" /tmp/o/ncu-packed.txt
fi
cp /tmp/o/*.json /tmp/o/*.txt $OUT/ 2>/dev/null
true
