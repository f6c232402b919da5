#!/bin/bash
# Call 169: rows of 2048 against 2049 (bf16, 16384 rows): how much of the d = 2049 gap is the row
# leaving the 16-byte grid, and how much the row's size. auto's plans and the register kernel at
# other geometries (rows a block, ITEMS), cold, two repeats. Files go to $OUT.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
B=$PWD/.device/ladder
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc
nvidia-smi -L
b() { local tag=$1; shift; timeout 120 $B bench "$@" 2>&1 | grep -E " ladder |copy ceiling|rror" | sed "s/^/$tag /"; }
{ echo "# Call 169 ($LADDER_COMMIT, a169.sh): 'auto' = auto's plan; 'regs' = schedule=regs; 'rpbN' = schedule=regs rpb=N; 'itN' = schedule=regs items=N; cold, two repeats. Columns: tag op dtype rows d impl hot cold hotGBps coldGBps frac same clean_us clean_frac."
  S="--shape 16384x2048 --shape 16384x2049"
  for rep in 1 2; do
    b auto rmsnorm add_rmsnorm layernorm --dtype bf16 $S
    b regs rmsnorm add_rmsnorm layernorm --dtype bf16 $S --variant schedule=regs
    for r in 2 4 8; do b rpb$r rmsnorm add_rmsnorm layernorm --dtype bf16 $S --variant schedule=regs --variant rpb=$r; done
    for it in 2 4; do b it$it rmsnorm add_rmsnorm layernorm --dtype bf16 $S --variant schedule=regs --variant items=$it; done
  done; } > $OUT/bench-2048-2049-169.txt
grep -v "copy ceiling" $OUT/bench-2048-2049-169.txt | awk 'NR>1{print $1,$2,$3,$4,$5,$8,$11}' | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1 -s
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread,launch__grid_size,launch__block_size,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum
{ for op in rmsnorm layernorm; do for d in 2048 2049; do
    echo "## ncu: $op bf16 16384x$d, auto"
    timeout 60 ncu --target-processes all --clock-control none --cache-control all --metrics $M -k regex:"_fwd" --launch-skip 4 --launch-count 1 \
      $B bench $op --dtype bf16 --shape 16384x$d --iters 5 2>&1 | grep -E "^  [a-z]|^ +[a-z]" | head -24
  done; done; } > $OUT/ncu-2048-2049-169.txt 2>&1
grep -E "##|void|duration|registers|warps_active|inst_exec|issue|dram" $OUT/ncu-2048-2049-169.txt | cut -c1-150
echo "total $SECONDS s"
true
