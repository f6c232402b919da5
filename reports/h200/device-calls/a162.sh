#!/bin/bash
# Call 162: column_sum with its partial rows' loads issued together (eight a thread, four
# columns a thread) and the two-stage bulk-copy backward kernels refilling a stage at its row's
# end (commit 0dc64ec), against the commit before them (f5b3a53: .device/ladder_old with
# .device/k_old; the planner's column_sum grid changed with the kernel, so each side runs its own
# binary). Two repeats, cold, the backward ops at the bench's shapes; Nsight Compute of the new
# column_sum beside its backward kernel; verify of the three backward ops; racecheck and memcheck
# of the quick bf16 backward grid. Files go to $OUT as each step ends.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
K=$PWD/kernels
b() { local tag=$1 bin=$2 k=$3; shift 3; LADDER_KERNELS_DIR=$k LADDER_CACHE_DIR=/tmp/lc-$tag timeout 90 $bin bench "$@" 2>&1 | grep -E " ladder |copy ceiling|rror" | sed "s/^/$tag /"; }
{ for rep in 1 2; do
    for side in new old; do
      if [ $side = new ]; then bin=$PWD/.device/ladder; k=$K; else bin=$PWD/.device/ladder_old; k=$PWD/.device/k_old; fi
      for op in layernorm_bwd rmsnorm_bwd add_rmsnorm_bwd; do
        b $side $bin $k $op --dtype bf16 --shape 2048x16384 --shape 16384x4096 --shape 4096x8192 --shape 8192x2049
        b $side $bin $k $op --dtype f32 --shape 1024x16384 --shape 16384x4096
      done
      b $side $bin $k layernorm_bwd --dtype f16 --shape 1024x32768
    done
    echo "rep $rep done at $SECONDS s" >&2
  done; } > $OUT/bench-bwd-reduce.txt
grep -v "copy ceiling" $OUT/bench-bwd-reduce.txt | awk '{print $1,$2,$3,$4,$5,$8,$9,$11,$13,$14}' | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1 -s
export LADDER_CACHE_DIR=/tmp/lc-new LADDER_KERNELS_DIR=$K
B=$PWD/.device/ladder
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct,launch__registers_per_thread
{ for op in layernorm_bwd rmsnorm_bwd add_rmsnorm_bwd; do
    echo "## ncu: $op bf16 2048x16384: the bulk kernel and its column_sum"
    timeout 60 ncu --target-processes all --clock-control none --cache-control all --metrics $M -k regex:"_bulk|column_sum" --launch-skip 4 --launch-count 2 \
      $B bench $op --dtype bf16 --shape 2048x16384 --iters 5 2>&1 | grep -E "^ +[a-z]" | head -12
    echo "## ncu: $op bf16 2048x16384, caches not flushed"
    timeout 60 ncu --target-processes all --clock-control none --cache-control none --metrics $M -k regex:"_bulk|column_sum" --launch-skip 4 --launch-count 2 \
      $B bench $op --dtype bf16 --shape 2048x16384 --iters 5 2>&1 | grep -E "^ +[a-z]" | head -12
  done; } > $OUT/ncu-bwd-162.txt 2>&1
grep -E "##|void|duration" $OUT/ncu-bwd-162.txt | cut -c1-120
{ echo "== ladder verify layernorm_bwd rmsnorm_bwd add_rmsnorm_bwd"
  timeout 200 $B verify layernorm_bwd rmsnorm_bwd add_rmsnorm_bwd --jobs 14 > /tmp/v162.txt 2>&1
  echo "exit $? at $SECONDS s"; grep -E " FAIL | UNRESOLVED | XPASS " /tmp/v162.txt | head -20; grep -E "rungs:" /tmp/v162.txt; } | tee $OUT/verify-162.txt
for tool in racecheck memcheck; do
  [ $SECONDS -lt 470 ] || { echo "no time left for $tool"; continue; }
  extra=""; [ $tool = memcheck ] && extra="--bare-allocations"
  timeout $((575-SECONDS)) compute-sanitizer --tool $tool --target-processes all --print-limit 5 $B verify layernorm_bwd rmsnorm_bwd add_rmsnorm_bwd --dtype bf16 --quick --no-fixtures --jobs 8 --timeout 120 $extra > /tmp/san-$tool.txt 2>&1
  { echo "exit $?"; grep -E "RACECHECK SUMMARY|ERROR SUMMARY|rungs:|Hazard|Invalid|out of bounds|Program hit" /tmp/san-$tool.txt | sort | uniq -c; } | tee $OUT/$tool-bwd-162.txt
done
echo "total $SECONDS s"
true
