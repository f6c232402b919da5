#!/bin/bash
# Call 185: the backward phase kernels' LEAN builds (phase_bound=1024: 64 registers, the sums in
# shared memory, no loads ahead; new this commit) against schedule=regs and the 512-bound phase
# builds (call 184: slower than regs but at d = 3073, in step with the blocks an SM), cold, two
# repeats; Nsight Compute on rmsnorm_bwd bf16 8192x2049 for the three; then ladder verify of the
# three backward ops, the selftest's backward rungs, compute-sanitizer over the bf16 backward
# phase rungs. Files go to $OUT.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
B=$PWD/.device/ladder
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc
nvidia-smi -L
left() { local l=$(( $1 - SECONDS )); [ $l -lt 5 ] && l=5; echo $l; }
b() { local tag=$1; shift; timeout $(left 200) $B bench "$@" 2>&1 | grep -E " ladder |copy ceiling|rror" | sed "s/^/$tag /"; }
S="--shape 8192x2049 --shape 16384x2049 --shape 16384x1025 --shape 8192x3073 --shape 4096x5125"
P="--variant schedule=phase"
{ echo "# Call 185 ($LADDER_COMMIT, a185.sh): the backward off the 16-byte grid: schedule=regs (regs), the 512-bound phase builds at auto's ITEMS (p512), the 1024-bound LEAN builds at ITEMS 1 and 2 (L1, L2; add_rmsnorm_bwd only 1); cold. Columns: tag op dtype rows d impl hot cold hotGBps coldGBps frac same clean_us clean_frac."
  for rep in 1 2; do
    b regs rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd --dtype bf16 $S --variant schedule=regs
    b p512 rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd --dtype bf16 $S $P
    b L1 rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd --dtype bf16 $S $P --variant phase_bound=1024 --variant phase_items=1
    b L2 rmsnorm_bwd layernorm_bwd --dtype bf16 $S $P --variant phase_bound=1024 --variant phase_items=2
  done; } > $OUT/bench-bwd-lean-185.txt
grep -v "copy ceiling" $OUT/bench-bwd-lean-185.txt | awk 'NR>1{print $1,$2,$3,$4,$5,$8,$11}' | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1 -s
echo "sweep done at $SECONDS s"
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread,launch__grid_size,launch__block_size,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,smsp__average_warp_latency_issue_stalled_barrier,smsp__average_warp_latency_issue_stalled_long_scoreboard,smsp__average_warp_latency_issue_stalled_short_scoreboard,smsp__average_warp_latency_issue_stalled_wait,smsp__average_warp_latency_issue_stalled_math_pipe_throttle,smsp__average_warp_latency_issue_stalled_lg_throttle,smsp__average_warps_issue_stalled_not_selected_per_issue_active,l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum,lts__t_bytes.sum,dram__bytes_read.sum,dram__bytes_write.sum
{ for v in "schedule=regs" "schedule=phase" "schedule=phase --variant phase_bound=1024 --variant phase_items=2"; do
    echo "## ncu: rmsnorm_bwd bf16 8192x2049, $v"
    timeout 60 ncu --target-processes all --clock-control none --cache-control all --metrics $M -k regex:"rmsnorm_bwd" --launch-skip 2 --launch-count 1 \
      $B bench rmsnorm_bwd --dtype bf16 --shape 8192x2049 --iters 3 --variant $v 2>&1 | grep -E "^  [a-z]|^ +[a-z]" | grep -v "max_rate\|\.pct " | head -30
  done; } > $OUT/ncu-185.txt 2>&1
cut -c1-130 $OUT/ncu-185.txt | grep -E "##|duration|inst_executed|warps_active|issue_active|registers|grid_size|ratio|bytes"
echo "ncu done at $SECONDS s"
timeout $(left 470) $B verify rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd --jobs 14 --json $OUT/verify-bwd-185.json > $OUT/verify-bwd-185.txt 2>&1; echo "verify exit $?"
grep -E "FAIL|UNRESOLVED|XPASS|rungs:" $OUT/verify-bwd-185.txt | head -20
$B verify --worst-from $OUT/verify-bwd-185.json > $OUT/verify-bwd-worst-185.txt 2>&1
timeout $(left 490) $B run --ladder probes/selftest.json 'st_bwd*' 'st_add_bwd*' --jobs 8 > $OUT/selftest-185.txt 2>&1; echo "selftest exit $?"
grep -E "st_|rungs:" $OUT/selftest-185.txt
$B verify rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd --dtype bf16 --no-fixtures --write-ladder /tmp/vb.json > /dev/null
for tool in memcheck racecheck; do
  extra=""; [ $tool = memcheck ] && extra="--bare-allocations"
  timeout $(left 580) compute-sanitizer --tool $tool --target-processes all --print-limit 5 $B run --ladder /tmp/vb.json '*phase_bound_1024*' --jobs 8 $extra > /tmp/san.txt 2>&1
  { echo "exit $?"; grep -E "RACECHECK SUMMARY|ERROR SUMMARY|rungs:|Hazard|Invalid|out of bounds|Program hit" /tmp/san.txt | sort | uniq -c; } > $OUT/$tool-bwd-lean-185.txt
  echo "== $tool"; cat $OUT/$tool-bwd-lean-185.txt
done
echo "total $SECONDS s"
true
