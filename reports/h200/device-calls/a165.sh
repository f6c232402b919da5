#!/bin/bash
# Call 165: schedule=warp (a row in one warp at 6, 9 or 12 chunks a thread, eight rows a block,
# launch bound 256) against auto's plan for rows off the 16-byte grid and the rows of 129-384
# chunks, two repeats, cold; Nsight Compute of both at bf16 16384x2049; then the 36 warp rungs of
# verify (every dtype, small and awkward shapes, odd strides, in place). Files go to $OUT as each
# step ends.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
B=$PWD/.device/ladder
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc
nvidia-smi -L
b() { local tag=$1; shift; timeout 120 $B bench "$@" 2>&1 | grep -E " ladder |copy ceiling|rror" | sed "s/^/$tag /"; }
{ echo "# Call 165 ($LADDER_COMMIT, a165.sh): 'auto' = auto's plan, 'warp' = schedule=warp, 'warp4' = schedule=warp rpb=4; two repeats, cold. Columns: tag op dtype rows d impl hot cold hotGBps coldGBps frac same clean_us clean_frac."
  for rep in 1 2; do
    for dt in bf16 f16; do
      S="--shape 16384x2049 --shape 8192x2049 --shape 16384x1025 --shape 16384x1537 --shape 8192x2500 --shape 8192x3000"
      b auto rmsnorm add_rmsnorm layernorm --dtype $dt $S
      b warp rmsnorm add_rmsnorm layernorm --dtype $dt $S --variant schedule=warp
      [ $dt = bf16 ] && b warp4 rmsnorm add_rmsnorm layernorm --dtype $dt --shape 16384x2049 --shape 8192x2049 --variant schedule=warp --variant rpb=4
    done
  done; } > $OUT/bench-warp-165.txt
grep -v "copy ceiling" $OUT/bench-warp-165.txt | awk 'NR>1{print $1,$2,$3,$4,$5,$8,$11}' | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1 -s
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread,launch__occupancy_limit_registers,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__inst_executed.sum,l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum
{ for op in rmsnorm add_rmsnorm layernorm; do
    for var in auto warp; do
      echo "## ncu: $op bf16 16384x2049, $var"
      extra=""; [ $var = warp ] && extra="--variant schedule=warp"
      timeout 60 ncu --target-processes all --clock-control none --cache-control all --metrics $M -k regex:"_fwd" --launch-skip 4 --launch-count 1 \
        $B bench $op --dtype bf16 --shape 16384x2049 --iters 5 $extra 2>&1 | grep -E "^  [a-z]|^ +[a-z]" | head -24
    done
  done; } > $OUT/ncu-warp-165.txt 2>&1
grep -E "##|void|duration|registers|warps_active|inst_exec|local" $OUT/ncu-warp-165.txt | cut -c1-150
{ echo "== ladder verify --write-ladder (rmsnorm add_rmsnorm layernorm), then ladder run '*warp*'"
  $B verify rmsnorm add_rmsnorm layernorm --no-fixtures --write-ladder /tmp/v.json > /dev/null
  timeout $((540-SECONDS)) $B run --ladder /tmp/v.json '*warp*' --jobs 12 --json $OUT/verify-warp-165.json > /tmp/vw.txt 2>&1
  echo "exit $? at $SECONDS s"; grep -E " FAIL | UNRESOLVED | XPASS " /tmp/vw.txt | head -20; tail -2 /tmp/vw.txt; } | tee $OUT/verify-warp-165.txt
echo "total $SECONDS s"
true
