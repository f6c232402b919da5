#!/bin/bash
# Call 170: schedule=phase (kernels/phase_rows.cuh: rows of one phase a block, the weights read
# once a block into shared memory) against auto's plans for rows off the 16-byte grid, cold, two
# repeats; Nsight Compute of both at bf16 16384x2049; then the 36 phase rungs of verify (every
# dtype, small and awkward shapes, odd strides, in place, eight blocks walking every row).
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
B=$PWD/.device/ladder
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc
nvidia-smi -L
b() { local tag=$1; shift; timeout 150 $B bench "$@" 2>&1 | grep -E " ladder |copy ceiling|rror" | sed "s/^/$tag /"; }
{ echo "# Call 170 ($LADDER_COMMIT, a170.sh): 'auto' = auto's plan; 'phase' = schedule=phase; 'phN' = schedule=phase items=N; 'odd' suffix: strided=odd (rows of 2048 with an odd stride); cold, two repeats. Columns: tag op dtype rows d impl hot cold hotGBps coldGBps frac same clean_us clean_frac."
  S="--shape 16384x2049 --shape 8192x2049 --shape 16384x1025 --shape 16384x769 --shape 4096x5125 --shape 65536x1025"
  for rep in 1 2; do
    b auto rmsnorm add_rmsnorm layernorm --dtype bf16 $S
    b phase rmsnorm add_rmsnorm layernorm --dtype bf16 $S --variant schedule=phase
    b ph2 rmsnorm add_rmsnorm layernorm --dtype bf16 --shape 16384x2049 --shape 16384x1025 --variant schedule=phase --variant items=2
    b ph4 rmsnorm add_rmsnorm layernorm --dtype bf16 --shape 16384x2049 --shape 4096x5125 --variant schedule=phase --variant items=4
    b auto-odd rmsnorm add_rmsnorm layernorm --dtype bf16 --shape 16384x2048 --variant strided=odd
    b phase-odd rmsnorm add_rmsnorm layernorm --dtype bf16 --shape 16384x2048 --variant strided=odd --variant schedule=phase
    for dt in f16 f32; do
      b auto rmsnorm add_rmsnorm layernorm --dtype $dt --shape 16384x2049
      b phase rmsnorm add_rmsnorm layernorm --dtype $dt --shape 16384x2049 --variant schedule=phase
    done
  done; } > $OUT/bench-phase-170.txt
grep -v "copy ceiling" $OUT/bench-phase-170.txt | awk 'NR>1{print $1,$2,$3,$4,$5,$8,$11}' | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1 -s
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread,launch__grid_size,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum
{ for op in rmsnorm add_rmsnorm layernorm; do
    echo "## ncu: $op bf16 16384x2049, schedule=phase"
    timeout 60 ncu --target-processes all --clock-control none --cache-control all --metrics $M -k regex:"_fwd" --launch-skip 4 --launch-count 1 \
      $B bench $op --dtype bf16 --shape 16384x2049 --iters 5 --variant schedule=phase 2>&1 | grep -E "^  [a-z]|^ +[a-z]" | head -24
  done; } > $OUT/ncu-phase-170.txt 2>&1
grep -E "##|void|duration|registers|warps_active|inst_exec|issue|dram|local|grid" $OUT/ncu-phase-170.txt | cut -c1-150
{ echo "== ladder verify --write-ladder (rmsnorm add_rmsnorm layernorm), then ladder run '*phase*'"
  $B verify rmsnorm add_rmsnorm layernorm --no-fixtures --write-ladder /tmp/v.json > /dev/null
  timeout $((570-SECONDS)) $B run --ladder /tmp/v.json '*phase*' --jobs 12 --json $OUT/verify-phase-170.json > /tmp/vp.txt 2>&1
  echo "exit $? at $SECONDS s"; grep -E " FAIL | UNRESOLVED | XPASS " /tmp/vp.txt | head -20; tail -2 /tmp/vp.txt; } | tee $OUT/verify-phase-170.txt
echo "total $SECONDS s"
true
