#!/bin/bash
# Call 156: the bulk-copy backward kernels after the register rework. layernorm_bwd_bulk read x
# and dy into registers and held them through the row with gamma: at ITEMS 2 x 1024 threads
# (auto at bf16 2048x16384, 0.41 of the copy ceiling in call 155) ptxas spilled 144 bytes; it
# now reads them from the stage in both passes (its stage refilled at the next row's reduction,
# as rmsnorm_bwd_bulk's), gamma through L1/L2 per pass, the recomputed statistics' variance
# joined to the main reduction: 24 bytes spilled. Both kernels now walk their rows through
# walk_bulk_rows (bulk_copy.cuh). Compared in one binary, two repeats, cold: the new kernels/
# (new), call 155's (.device/k_old), and a copy with the RMS weight read per pass as gamma is
# (.device/k_wldg: no spills where add_rmsnorm_bwd_bulk spilled 72 bytes). Then Nsight Compute of
# the three kernels (local-memory traffic, stall reasons) and ladder verify of the three
# backward ops and the 57 at-scale rungs of bwd-bulk-ladder.json on the new kernels.
set -u
B=$PWD/.device/ladder
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
K=$PWD/kernels
b() { local tag=$1 k=$2; shift 2; LADDER_KERNELS_DIR=$k LADDER_CACHE_DIR=/tmp/lc-$(basename $k) timeout 90 $B bench "$@" 2>&1 | grep -E " ladder |copy ceiling|rror" | sed "s/^/$tag /"; }
{ for rep in 1 2; do
    for op in layernorm_bwd rmsnorm_bwd add_rmsnorm_bwd; do
      S="$op --dtype bf16 --shape 2048x16384"
      b new $K $S; b old $PWD/.device/k_old $S
      [ $op = layernorm_bwd ] || b wldg $PWD/.device/k_wldg $S
      b new $K $op --dtype f32 --shape 1024x16384; b old $PWD/.device/k_old $op --dtype f32 --shape 1024x16384
      [ $op = layernorm_bwd ] || b wldg $PWD/.device/k_wldg $op --dtype f32 --shape 1024x16384
    done
    b new $K layernorm_bwd --dtype f16 --shape 2048x16384 --shape 1024x32768
    b old $PWD/.device/k_old layernorm_bwd --dtype f16 --shape 2048x16384 --shape 1024x32768
    b new-i4t512 $K layernorm_bwd --dtype bf16 --shape 2048x16384 --variant schedule=bulk --variant bulk_items=4 --variant bulk_threads=512
    b new-recompute $K layernorm_bwd --dtype bf16 --shape 2048x16384 --variant stats=recompute
    b old-recompute $PWD/.device/k_old layernorm_bwd --dtype bf16 --shape 2048x16384 --variant stats=recompute
    b new-bulk $K layernorm_bwd --dtype bf16 --shape 4096x8192 --variant schedule=bulk
    b old-bulk $PWD/.device/k_old layernorm_bwd --dtype bf16 --shape 4096x8192 --variant schedule=bulk
    echo "rep $rep done at $SECONDS s" >&2
  done; } > $OUT/bench-bwd-stage-reads.txt
grep -v "copy ceiling" $OUT/bench-bwd-stage-reads.txt | sort -k3,3 -k4,4 -k5,5n -k6,6n -k1,1 -s | awk '{print $1,$3,$4,$5,$6,$8,$11,"clean",$13,$14}'
{ echo "== ladder verify layernorm_bwd rmsnorm_bwd add_rmsnorm_bwd"
  LADDER_KERNELS_DIR=$K LADDER_CACHE_DIR=/tmp/lc-v timeout 170 $B verify layernorm_bwd rmsnorm_bwd add_rmsnorm_bwd --jobs 14 2>&1 | grep -E "FAIL|UNRESOLVED|XPASS|rungs:" | tail -20
  echo "exit ${PIPESTATUS[0]} at $SECONDS s"
  echo "== ladder run --ladder reports/h200/bwd-bulk-ladder.json"
  LADDER_KERNELS_DIR=$K LADDER_CACHE_DIR=/tmp/lc-r timeout 120 $B run --ladder reports/h200/bwd-bulk-ladder.json --jobs 8 --timeout 60 2>&1 | grep -vE " PASS " | tail -30
  echo "exit ${PIPESTATUS[0]} at $SECONDS s"; } | tee $OUT/verify-156.txt | grep -E "exit|rungs|FAIL|UNRES"
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum,l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum,lts__t_bytes.sum,smsp__issue_active.avg.pct_of_peak_sustained_active
for r in long_scoreboard barrier short_scoreboard lg_throttle wait mio_throttle; do M=$M,smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio; done
{ for op in layernorm_bwd rmsnorm_bwd add_rmsnorm_bwd; do
    for k in $K $([ $op = layernorm_bwd ] && echo $PWD/.device/k_old); do
      echo "## ncu: $op bf16 2048x16384, kernels $(basename $k)"
      LADDER_KERNELS_DIR=$k LADDER_CACHE_DIR=/tmp/lc-$(basename $k) timeout 60 ncu --target-processes all --clock-control none --cache-control all --metrics $M -k regex:"_bulk" --launch-skip 2 --launch-count 1 \
        $B bench $op --dtype bf16 --shape 2048x16384 --iters 5 2>&1 | grep -E "^ +[a-z]" | head -20
    done
  done; } > $OUT/ncu-bwd-bulk.txt 2>&1
grep -E "##|duration|local_op|registers|warps_active|long_score|barrier" $OUT/ncu-bwd-bulk.txt | head -60
true
# Where the spills are (ptxas sm_90): local loads and stores per kernel, and the branch
# targets around them, for the three kernel sets.
{ for k in $K $PWD/.device/k_old $PWD/.device/k_wldg; do
    echo "## kernels $(basename $k)"
    nvcc -arch=sm_90 -cubin -std=c++17 -I$k -o /tmp/s.cubin $PWD/.device/inst.cu || continue
    cuobjdump -sass /tmp/s.cubin | awk '/Function :/{f=$3} /LDL|STL/{n[f]++} END{for (f in n) print n[f], f}'
    cuobjdump -sass /tmp/s.cubin | grep -nE "Function :|LDL|STL|BRA|BAR.SYNC|SYNCS|EXIT" | cut -c1-110 | head -150
  done; } > $OUT/sass-spills.txt 2>&1
grep -A6 "## kernels" $OUT/sass-spills.txt | head -30
echo "total $SECONDS s"
