#!/bin/bash
# Call 167: the staged kernels' OFF_GRID builds (rows off the 16-byte grid: edge chunks staged
# whole, the weight read skewed) against auto's plans and against the staged build that gathers
# them (off_grid=0), at ITEMS 1-4 and two or three stages, cold; Nsight Compute of one; then the
# staged rungs of verify (every dtype, small and awkward shapes, odd strides, in place, one block
# walking consecutive rows). Files go to $OUT as each step ends.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
B=$PWD/.device/ladder
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc
nvidia-smi -L
b() { local tag=$1; shift; timeout 120 $B bench "$@" 2>&1 | grep -E " ladder |copy ceiling|rror" | sed "s/^/$tag /"; }
{ echo "# Call 167 ($LADDER_COMMIT, a167.sh): 'auto' = auto's plan; 'stN' = schedule=staged items=N (OFF_GRID, three stages); 'st2s2' = two stages; 'og0' = schedule=staged off_grid=0 (edges and weight gathered); cold. Columns: tag op dtype rows d impl hot cold hotGBps coldGBps frac same clean_us clean_frac."
  S="--shape 16384x2049 --shape 8192x2049 --shape 16384x1025 --shape 4096x5125"
  for rep in 1 2; do
    b auto rmsnorm add_rmsnorm --dtype bf16 $S
    for it in 1 2 3 4; do b st$it rmsnorm add_rmsnorm --dtype bf16 $S --variant schedule=staged --variant items=$it; done
    b st2s2 rmsnorm add_rmsnorm --dtype bf16 $S --variant schedule=staged --variant items=2 --variant stages=2
    b og0 rmsnorm add_rmsnorm --dtype bf16 $S --variant schedule=staged --variant off_grid=0
    b auto rmsnorm add_rmsnorm --dtype f16 --shape 16384x2049
    b st2 rmsnorm add_rmsnorm --dtype f16 --shape 16384x2049 --variant schedule=staged --variant items=2
    b auto rmsnorm add_rmsnorm --dtype f32 --shape 16384x2049 --shape 8192x2049
    b og0 rmsnorm add_rmsnorm --dtype f32 --shape 16384x2049 --shape 8192x2049 --variant off_grid=0
  done; } > $OUT/bench-staged-offgrid-167.txt
grep -v "copy ceiling" $OUT/bench-staged-offgrid-167.txt | awk 'NR>1{print $1,$2,$3,$4,$5,$8,$11}' | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1 -s
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum
{ for it in 2 3; do
    echo "## ncu: rmsnorm bf16 16384x2049, schedule=staged items=$it"
    timeout 60 ncu --target-processes all --clock-control none --cache-control all --metrics $M -k regex:"_fwd" --launch-skip 4 --launch-count 1 \
      $B bench rmsnorm --dtype bf16 --shape 16384x2049 --iters 5 --variant schedule=staged --variant items=$it 2>&1 | grep -E "^  [a-z]|^ +[a-z]" | head -24
  done; } > $OUT/ncu-staged-offgrid-167.txt 2>&1
grep -E "##|void|duration|registers|warps_active|inst_exec|local|dram" $OUT/ncu-staged-offgrid-167.txt | cut -c1-150
{ echo "== ladder verify --write-ladder (rmsnorm add_rmsnorm), then ladder run '*staged*'"
  $B verify rmsnorm add_rmsnorm --no-fixtures --write-ladder /tmp/v.json > /dev/null
  timeout $((560-SECONDS)) $B run --ladder /tmp/v.json '*staged*' --jobs 12 --json $OUT/verify-staged-167.json > /tmp/vs.txt 2>&1
  echo "exit $? at $SECONDS s"; grep -E " FAIL | UNRESOLVED | XPASS " /tmp/vs.txt | head -20; tail -2 /tmp/vs.txt; } | tee $OUT/verify-staged-167.txt
echo "total $SECONDS s"
true
