#!/bin/bash
# Call 156 (prepared, not yet run): the device ctest that call 155 could not finish, and where the
# bulk-copy backward kernels lose time at bf16 2048x16384 (rmsnorm_bwd 0.70, add_rmsnorm_bwd 0.66,
# layernorm_bwd 0.41 of the copy ceiling in call 155). Part 1: the device's own build and ctest
# of the commit. Part 2: Nsight Compute of the three kernels there (clean caches): time, DRAM,
# instructions, occupancy, registers, local-memory traffic (the 1024-thread ITEMS 2 builds
# spill 72-152 bytes) and warp stall reasons. Part 3: LayerNorm's at other blocks and ITEMS
# (bulk_threads, bulk_items) and stages, bf16 and f16, two repeats, cold.
set -u
B=$PWD/.device/ladder
export LADDER_COMMIT=${LADDER_COMMIT:?} LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc
mkdir -p $OUT
export LADDER_BUILD_DIR=$PWD/build-device
{ echo "== build on the device machine"; ( time scripts/build ) 2>&1 | grep -E "error|real"
  echo "== ctest (gpu label included)"; (cd build-device && time timeout 300 ctest --output-on-failure 2>&1 | tail -15); } > $OUT/device-tests.txt 2>&1
grep -E "tests passed|Passed|Failed|real" $OUT/device-tests.txt
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum,smsp__issue_active.avg.pct_of_peak_sustained_active
for r in long_scoreboard barrier short_scoreboard lg_throttle no_instruction wait mio_throttle membar; do M=$M,smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio; done
{ for op in rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd; do
    echo "## ncu: ladder auto $op bf16 2048x16384"
    timeout 100 ncu --target-processes all --clock-control none --cache-control all --metrics $M -k regex:"_bulk" --launch-skip 2 --launch-count 1 \
      $B bench $op --dtype bf16 --shape 2048x16384 --iters 5 2>&1 | grep -E "^ +[a-z]|_bulk" | head -24
  done; } 2>&1 | tee $OUT/ncu-bwd-bulk.txt
b() { local tag=$1; shift; timeout 90 $B bench layernorm_bwd "$@" 2>&1 | grep -E " ladder |copy ceiling|rror" | sed "s/^/$tag /"; }
{ for rep in 1 2; do
    for dt in bf16 f16; do
      S="--dtype $dt --shape 2048x16384 --variant schedule=bulk"
      b auto $S
      b i4-t512 $S --variant bulk_items=4 --variant bulk_threads=512
      b i4-t1024 $S --variant bulk_items=4
      b s2 $S --variant bulk_stages=2
    done
  done; } > $OUT/bench-bwd-bulk-shapes.txt
grep -v "copy ceiling" $OUT/bench-bwd-bulk-shapes.txt | sort -k3,3 -k4,4n -k5,5n -k1,1 -s | awk '{print $1,$3,$4,$5,$8,$11,"clean",$13,$14}'
echo "total $SECONDS s"
true
