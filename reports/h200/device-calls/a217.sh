#!/bin/bash
# Call 217: the twin condition of the weight-gradient reduce (column_sum and the in-kernel reduce
# asking partial_rows_take_chunks) against 532f0c3's kernels, same binary, cold, two rounds
# alternating; and where the forward phase kernels' instructions go at bf16 16384x2049: Nsight
# Compute's per-instruction counts (SourceCounters, caches flushed, one launch each) of
# rmsnorm_fwd_phase, layernorm_fwd_phase and add_rmsnorm_fwd_phase, with the aligned rows of 2048
# as the control. Files go to $OUT.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT /tmp/o/src
B=$PWD/.device/ladder
NEW=$PWD/kernels BASE=$PWD/.device/base/kernels
export LADDER_CACHE_DIR=/tmp/lc
nvidia-smi -L
left() { local l=$(( $1 - SECONDS )); [ $l -lt 5 ] && l=5; echo $l; }
b() { local tag=$1 dir=$2; shift 2; LADDER_KERNELS_DIR=$dir timeout $(left 200) $B bench "$@" 2>&1 | grep -E " ladder |copy ceiling|rror" | sed "s/^/$tag /"; }
{ echo "# Call 217 ($LADDER_COMMIT, a217.sh): tags base (532f0c3's kernels) and twin (partial_rows_take_chunks), same binary. Cold. Columns: tag op dtype rows d impl hot cold hotGBps coldGBps frac same clean_us clean_frac."
  for rep in 1 2; do
    for op in rmsnorm_bwd layernorm_bwd add_rmsnorm_bwd; do
      for k in base twin; do
        dir=$NEW; [ $k = base ] && dir=$BASE
        b $k $dir $op --dtype bf16 --shape 2048x16384 --shape 8192x2049
        b $k-grid $dir $op --dtype bf16 --shape 2048x16384 --variant reduce=grid
      done
    done
  done
  for op in rmsnorm layernorm add_rmsnorm; do b fwd $NEW $op --dtype bf16 --shape 16384x2049 --shape 16384x2048; done
} > $OUT/bench-twin-217.txt
grep -v "copy ceiling" $OUT/bench-twin-217.txt | awk 'NR>1{print $1,$2,$3,$4,$5,$8}' | sort -k2,2 -k4,4n -k5,5n -k1,1 -s
echo "bench done $SECONDS s"
export LADDER_KERNELS_DIR=$NEW
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread,launch__occupancy_limit_registers,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,smsp__average_warp_latency_issue_stalled_barrier.ratio,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_short_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_wait.ratio,smsp__average_warp_latency_issue_stalled_not_selected.ratio,smsp__average_warp_latency_issue_stalled_lg_throttle.ratio,smsp__average_warp_latency_issue_stalled_branch_resolving.ratio,smsp__average_warp_latency_issue_stalled_math_pipe_throttle.ratio
prof() {  # name, kernel regex, command...
  local name=$1 re=$2; shift 2
  timeout $(left 480) ncu --clock-control none --cache-control all \
    --section SourceCounters --section WarpStateStats --section InstructionStats --metrics $M \
    -k regex:"$re" --launch-skip 2 --launch-count 1 -f -o /tmp/o/src/$name "$@" > /tmp/o/src/$name.log 2>&1
  echo "## $name: exit $?"
  ncu -i /tmp/o/src/$name.ncu-rep --page details --metrics $M 2>&1 | grep -E "^ +(gpu|dram|launch|sm__|smsp)|\(.*\)x\("
  ncu -i /tmp/o/src/$name.ncu-rep --page source --csv --print-source sass > /tmp/o/src/$name.csv 2>/tmp/o/src/$name.err
  echo "source rows: $(wc -l < /tmp/o/src/$name.csv)"; head -c 300 /tmp/o/src/$name.err
}
{
  for op in rmsnorm layernorm add_rmsnorm; do
    prof ${op}_2049 "_fwd" $B bench $op --dtype bf16 --shape 16384x2049 --iters 4
    prof ${op}_2048 "_fwd" $B bench $op --dtype bf16 --shape 16384x2048 --iters 4
  done
} 2>&1 | tee $OUT/ncu-phase-217.txt
tar -czf $OUT/src217.tgz -C /tmp/o/src $(cd /tmp/o/src && ls *.csv *.log *.err)
echo "total $SECONDS s"
true
