#!/bin/bash
# Call 158: the rest of the evidence for the commit of call 157: the 57 at-scale rungs of the
# bulk-copy backward kernels (bwd-bulk-ladder.json) under ladder run, memcheck over the bf16 ones
# (the staged weight row and the row walk are new), Nsight Compute of the three kernels at bf16
# 2048x16384 (local-memory traffic: ptxas spills 48 bytes in LayerNorm's), and the device's own
# cmake/nvcc/Catch2 v3 build (in the background meanwhile) and its ctest, gpu label included.
set -u
B=$PWD/.device/ladder
export LADDER_COMMIT=${LADDER_COMMIT:?} LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc
mkdir -p $OUT
export LADDER_BUILD_DIR=$PWD/build-device
( { time scripts/build; } > /tmp/build158.txt 2>&1 ) &
bp=$!
{ echo "== ladder run --ladder reports/h200/bwd-bulk-ladder.json"
  timeout 200 $B run --ladder reports/h200/bwd-bulk-ladder.json --jobs 8 --timeout 60 > /tmp/lad158.txt 2>&1; echo "exit $? at $SECONDS s"
  grep -vE " PASS " /tmp/lad158.txt | tail -30; grep -E "rungs:" /tmp/lad158.txt; } | tee $OUT/bwd-bulk-ladder-158.txt | tail -4
python3 -c "
import json; d=json.load(open('reports/h200/bwd-bulk-ladder.json'))
d['rungs']=[r for r in d['rungs'] if r['kernel']['dtype']=='bf16']
json.dump(d,open('/tmp/bwd-bulk-bf16.json','w'))"
timeout 200 compute-sanitizer --tool memcheck --target-processes all --print-limit 5 $B run --ladder /tmp/bwd-bulk-bf16.json --bare-allocations --jobs 4 --timeout 190 > /tmp/mc158.txt 2>&1
{ echo "exit $?"; grep -E "ERROR SUMMARY|rungs:|Invalid|out of bounds" /tmp/mc158.txt | sort | uniq -c; } | tee $OUT/memcheck-bwd-bulk-158.txt
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread,l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum,l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio
{ for op in layernorm_bwd rmsnorm_bwd add_rmsnorm_bwd; do
    echo "## ncu: $op bf16 2048x16384 (auto: the bulk kernel)"
    timeout 60 ncu --target-processes all --clock-control none --cache-control all --metrics $M -k regex:"_bulk" --launch-skip 2 --launch-count 1 \
      $B bench $op --dtype bf16 --shape 2048x16384 --iters 5 2>&1 | grep -E "^ +[a-z]" | head -12
  done; } > $OUT/ncu-bwd-bulk-158.txt 2>&1
grep -E "##|duration|local_op" $OUT/ncu-bwd-bulk-158.txt
wait $bp
{ echo "== build on the device machine"; grep -E "error|real" /tmp/build158.txt; nvidia-smi --query-gpu=name,driver_version --format=csv;
  echo "== ctest (gpu label included)"; (cd build-device && time timeout $((585-SECONDS)) ctest --output-on-failure 2>&1 | tail -15); } > $OUT/device-tests.txt 2>&1
grep -E "tests passed|Passed|Failed|real|error" $OUT/device-tests.txt
echo "total $SECONDS s"
true
