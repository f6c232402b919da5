#!/bin/bash
# Call 174: the phase kernels' launch guards red on the GPU (probes/selftest.json, st_phase_*);
# then where the backward's time goes at the shapes still short of 0.75: each op's event-timed
# total (cold, two repeats, pdl on and off) against Nsight Compute's durations of its row kernel
# and its final reduce (caches flushed before each), and the same ops without weight gradients. Files go to $OUT.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
B=$PWD/.device/ladder
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc
nvidia-smi -L
{ timeout 120 $B run --ladder probes/selftest.json 'st_phase*' 'st_staged*' --jobs 4 --json /tmp/st.json; echo "exit $?"; } > $OUT/selftest-phase-174.txt 2>&1
cat $OUT/selftest-phase-174.txt | tail -8
b() { local tag=$1; shift; timeout 150 $B bench "$@" 2>&1 | grep -E " ladder |copy ceiling|rror" | sed "s/^/$tag /"; }
S="--shape 8192x2048 --shape 8192x2049 --shape 16384x2049 --shape 2048x16384 --shape 4096x8192"
{ echo "# Call 174 ($LADDER_COMMIT, a174.sh): backward bf16, auto's plans ('auto'), with pdl=0 ('nopdl') and without weight gradients ('nodw': weight=none, affine=0; no partials, no final reduce), cold, two repeats. Columns: tag op dtype rows d impl hot cold hotGBps coldGBps frac same clean_us clean_frac."
  for rep in 1 2; do
    b auto rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd --dtype bf16 $S
    b nopdl rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd --dtype bf16 $S --variant pdl=0
    b nodw rmsnorm_bwd add_rmsnorm_bwd --dtype bf16 $S --variant weight=none
    b nodw layernorm_bwd --dtype bf16 $S --variant affine=0
  done; } > $OUT/bench-bwd-174.txt
grep -v "copy ceiling" $OUT/bench-bwd-174.txt | awk 'NR>1{print $1,$2,$3,$4,$5,$8,$11}' | sort -k2,2 -k4,4n -k5,5n -k1,1 -s
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread,launch__grid_size,launch__block_size,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,dram__bytes_read.sum,dram__bytes_write.sum
{ for op in rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd; do for s in 8192x2048 8192x2049 2048x16384 4096x8192; do
    echo "## ncu: $op bf16 $s, auto"
    timeout 60 ncu --target-processes all --clock-control none --cache-control all --metrics $M -k regex:"_bwd|column_sum" --launch-skip 2 --launch-count 2 \
      $B bench $op --dtype bf16 --shape $s --iters 3 2>&1 | grep -E "^  [a-z]|^ +[a-z]" | head -30
  done; done; } > $OUT/ncu-bwd-174.txt 2>&1
grep -E "##|void|duration|registers|warps_active|issue|dram__th" $OUT/ncu-bwd-174.txt | cut -c1-140
echo "total $SECONDS s"
true
