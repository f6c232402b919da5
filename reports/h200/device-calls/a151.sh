#!/bin/bash
# Call 151: where LayerNorm bf16 at d = 1024 (0.843, the register kernel, one warp a row) loses
# to RMSNorm at the same shape (0.915, two rows a thread), and the streamed RMSNorm at more rows
# an SM. Part 1: LayerNorm bf16 65536x1024 under every schedule and block the planner offers
# (one binary, two repeats, cold), then Nsight Compute of auto's LayerNorm and RMSNorm there
# (time, DRAM, instructions, occupancy, registers, warp stall reasons). Part 2: the backward at
# bf16 4096x8192 (layernorm_bwd 0.67, add_rmsnorm_bwd 0.73) at each ITEMS. Part 3 (the call
# prepared in the previous round): copies of kernels/ made here by sed: MSU_N = S chunks in
# flight a thread in the sum-of-squares pass, U in the output pass, the 16-bit launch bound at N
# thread slots an SM (ptxas, sm_90: M42_2048 and M41_2048 32 registers without spills; main: 40,
# at 1536, four and four), against main's kernels (K), two repeats, cold; then ladder verify
# rmsnorm on both copies while time remains.
set -u
B=$PWD/.device/ladder
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
b() { local tag=$1 k=$2; shift 2; LADDER_KERNELS_DIR=$k LADDER_CACHE_DIR=/tmp/lc-$tag timeout 60 $B bench "$@" 2>&1 | grep -E " ladder |copy ceiling|rror" | sed "s/^/$tag /"; }
K=$PWD/kernels
S1="layernorm --dtype bf16 --shape 65536x1024"
{ for rep in 1 2; do
    b auto $K $S1
    for it in 2 8; do b regs-i$it $K $S1 --variant schedule=regs --variant items=$it; done
    for r in 1 2 4; do b regs-rpb$r $K $S1 --variant schedule=regs --variant rpb=$r; done
    for t in 64 128; do b row-t$t $K $S1 --variant schedule=row --variant row_threads=$t; done
    b wide $K $S1 --variant schedule=wide
    b packed $K $S1 --variant schedule=packed
    for p in 2 3; do b loop-p$p $K $S1 --variant schedule=loop --variant loop_threads=128 --variant loop_passes=$p; done
    b bulk $K $S1 --variant schedule=bulk
    b rms-auto $K rmsnorm --dtype bf16 --shape 65536x1024
    b rms-regs $K rmsnorm --dtype bf16 --shape 65536x1024 --variant schedule=regs
    echo "rep $rep part 1 done at $SECONDS s" >&2
  done; } > $OUT/bench-layernorm-1024.txt
awk '{print $1,$2,$3,$4,$5,$6,$8,$11,"clean",$13,$14}' $OUT/bench-layernorm-1024.txt
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__occupancy_limit_registers,launch__grid_size,launch__block_size,smsp__issue_active.avg.pct_of_peak_sustained_active
for r in long_scoreboard barrier short_scoreboard lg_throttle no_instruction wait math_pipe_throttle mio_throttle; do M=$M,smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio; done
{ for spec in "layernorm" "rmsnorm"; do
    echo "## ncu: ladder auto $spec bf16 65536x1024"
    LADDER_KERNELS_DIR=$K LADDER_CACHE_DIR=/tmp/lc-auto timeout 120 ncu --target-processes all --clock-control none --cache-control all --metrics $M -k regex:"^(layernorm|rmsnorm)" --launch-skip 2 --launch-count 1 \
      $B bench $spec --dtype bf16 --shape 65536x1024 --iters 5 2>&1 | grep -E "^ +[a-z]|(layernorm|rmsnorm)_fwd" | head -24
  done; } 2>&1 | tee $OUT/ncu-layernorm-1024.txt
{ for rep in 1 2; do
    for op in layernorm_bwd add_rmsnorm_bwd; do
      b $op-auto $K $op --dtype bf16 --shape 4096x8192
      for it in 1 2 4; do b $op-i$it $K $op --dtype bf16 --shape 4096x8192 --variant items=$it; done
    done
  done; } > $OUT/bench-bwd-items.txt
awk '{print $1,$2,$3,$4,$5,$6,$8,$11,"clean",$13,$14}' $OUT/bench-bwd-items.txt
echo "parts 1-2 done at $SECONDS s"
mk() { local n=$1; rm -rf /tmp/$n; cp -r $K /tmp/$n
  sed -i "s/for_thread_units<T, THREADS, false>/for_thread_units<T, THREADS, false, $2>/; s/for_thread_units<T, THREADS, true>/for_thread_units<T, THREADS, true, $3>/; s/loop_min_blocks(THREADS, sizeof(T), 1536)/loop_min_blocks(THREADS, sizeof(T), $4)/" /tmp/$n/rmsnorm_loop.cuh; }
mk M42_2048 4 2 2048; mk M41_2048 4 1 2048; mk M22_2048 2 2 2048
S="--shape 16384x4096 --shape 8192x8192 --shape 4096x16384 --shape 2048x32768"
{ for rep in 1 2; do
    for k in K M42_2048 M41_2048 M22_2048; do
      D=/tmp/$k; [ $k = K ] && D=$K
      for dt in bf16 f16; do b $k $D rmsnorm --dtype $dt $S; done
      echo "rep $rep $k done at $SECONDS s" >&2
    done
  done; } > $OUT/bench-rms-occupancy.txt
grep -v "copy ceiling" $OUT/bench-rms-occupancy.txt | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1 | awk '{print $1,$2,$3,$4,$5,$8,$11,"clean",$13,$14}'
for k in M42_2048 M41_2048; do
  if [ $SECONDS -lt 420 ]; then
    { echo "== $k: ladder verify rmsnorm"
      LADDER_KERNELS_DIR=/tmp/$k LADDER_CACHE_DIR=/tmp/lc-$k timeout $((570-SECONDS)) $B verify rmsnorm --jobs 14 2>&1 | grep -E "FAIL|UNRESOLVED|XPASS|rungs:" | tail -20
      echo "exit ${PIPESTATUS[0]} at $SECONDS s"; } | tee -a $OUT/verify-151.txt | tail -3
  else echo "$k verify skipped at $SECONDS s" | tee -a $OUT/verify-151.txt; fi
done
echo "total $SECONDS s"
true
