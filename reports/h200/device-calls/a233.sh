#!/bin/bash
# Call 233: the backward bulk kernels with their weight-gradient partial rows pooled over clusters
# of two blocks (bulk_pool=2, kernels/cluster_pool.cuh), which have not run on the H200 before.
# At bf16 2048x16384 one block an SM writes 132 partial rows of 64 KiB a gradient after its last
# row, and column_sum reads them again; pooled, 66. Part 1: every pooled verify rung (42: three
# ops, three dtypes, with and without dh, statistics recomputed, odd strides, three clusters, the
# kernel's own reduce). Part 2: bench, two rounds, plain against pooled at the bulk kernels' shapes,
# compared with `ladder compare --across-variants`, each with the reduce a launch of its own
# (auto) and the kernel's own (reduce=grid). Part 3: compute-sanitizer memcheck and racecheck
# over the bf16 pooled rungs. Part 4: Nsight Compute of rmsnorm_bwd's two launches, plain and
# pooled (durations, DRAM bytes written). Carried: .device/ladder (main's build, stripped).
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
B=$PWD/.device/ladder
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc
mkdir -p $OUT
left() { local l=$(( $1 - SECONDS )); [ $l -lt 5 ] && l=5; echo $l; }
$B verify rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd --write-ladder /tmp/v.json > /dev/null 2>&1
python3 - <<'PY'
import json
d = json.load(open('/tmp/v.json'))
d['rungs'] = [r for r in d['rungs'] if 'bulk_pool' in r['name']]
json.dump(d, open('/tmp/v-pool.json', 'w'))
print(len(d['rungs']), 'pooled rungs')
PY
timeout 240 $B run --ladder /tmp/v-pool.json --jobs 14 --json $OUT/verify-pool.json > $OUT/verify-pool.txt 2>&1
echo "verify exit $?"; grep -E "FAIL|UNRESOLVED|XPASS|rungs:" $OUT/verify-pool.txt | head -12
b() { # json args...
  local json=$1; shift
  timeout 90 $B bench "$@" --json $json 2>&1 | grep -E " ladder |copy ceiling|rror"
}
{ for rep in 1 2; do
    for op in rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd; do
      b $OUT/b-$op-plain-$rep.json $op --dtype bf16 --shape 2048x16384 --shape 4096x16384 --variant schedule=bulk | sed "s/^/plain /"
      b $OUT/b-$op-pool-$rep.json $op --dtype bf16 --shape 2048x16384 --shape 4096x16384 --variant schedule=bulk --variant bulk_pool=2 | sed "s/^/pool /"
    done
    for op in rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd; do  # the kernel's own reduce
      b $OUT/b-$op-plaingrid-$rep.json $op --dtype bf16 --shape 2048x16384 --variant schedule=bulk --variant reduce=grid | sed "s/^/plain-grid /"
      b $OUT/b-$op-poolgrid-$rep.json $op --dtype bf16 --shape 2048x16384 --variant schedule=bulk --variant bulk_pool=2 --variant reduce=grid | sed "s/^/pool-grid /"
    done
    for op in rmsnorm_bwd add_rmsnorm_bwd; do
      b $OUT/b-$op-plain32-$rep.json $op --dtype bf16 --shape 1024x32768 | sed "s/^/auto /"
      b $OUT/b-$op-pool32-$rep.json $op --dtype bf16 --shape 1024x32768 --variant schedule=bulk --variant bulk_pool=2 | sed "s/^/pool /"
    done
    b $OUT/b-f32-plain-$rep.json layernorm_bwd --dtype f32 --shape 2048x8192 --variant schedule=bulk --variant bulk_items=2 --variant bulk_threads=1024 | sed "s/^/plain /"
    b $OUT/b-f32-pool-$rep.json layernorm_bwd --dtype f32 --shape 2048x8192 --variant schedule=bulk --variant bulk_items=2 --variant bulk_threads=1024 --variant bulk_pool=2 | sed "s/^/pool /"
    echo "round $rep done at $SECONDS s" >&2
  done
  for op in rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd; do
    echo "== compare $op bf16, plain -> pooled, round 2"
    $B compare --across-variants $OUT/b-$op-plain-2.json $OUT/b-$op-pool-2.json | grep -vE "^$" | head -10
    echo "== compare $op bf16, the kernel's own reduce, plain -> pooled, round 2"
    $B compare --across-variants $OUT/b-$op-plaingrid-2.json $OUT/b-$op-poolgrid-2.json | grep -vE "^$" | head -8
  done
} > $OUT/bench-pool.txt 2>&1
cat $OUT/bench-pool.txt
echo "bench done $SECONDS s"
# compute-sanitizer over the pooled rungs (their distributed shared memory and cluster barriers):
# memcheck with bare allocations (no redzones, so that the tool sees every stray access), racecheck.
for tool in memcheck racecheck; do
  [ $SECONDS -gt 420 ] && { echo "$tool skipped at $SECONDS s"; continue; }
  extra=""; [ $tool = memcheck ] && extra="--bare-allocations"
  timeout $(left 500) compute-sanitizer --tool $tool --target-processes all --print-limit 5 $B run --ladder /tmp/v-pool.json '*bf16*' --jobs 4 $extra > /tmp/san.txt 2>&1
  { echo "exit $?"; grep -E "RACECHECK SUMMARY|ERROR SUMMARY|rungs:|Hazard|Invalid|out of bounds|Program hit" /tmp/san.txt | sort | uniq -c; } > $OUT/$tool-pool-233.txt
  echo "== $tool"; cat $OUT/$tool-pool-233.txt
done
if [ $SECONDS -gt 480 ]; then echo "ncu skipped at $SECONDS s"; echo "total $SECONDS s"; exit 0; fi
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,launch__registers_per_thread
{ for p in 1 2; do
    echo "## rmsnorm_bwd bf16 2048x16384 schedule=bulk bulk_pool=$p: the row kernel, then column_sum"
    timeout $(left 590) ncu --target-processes all --clock-control none --cache-control all --metrics $M \
      -k regex:"rmsnorm_bwd|column_sum" --launch-skip 4 --launch-count 2 \
      $B bench rmsnorm_bwd --dtype bf16 --shape 2048x16384 --iters 5 --variant schedule=bulk --variant bulk_pool=$p 2>&1 |
      grep -E "^ +[a-z]|rmsnorm_bwd|column_sum" | head -14
  done
} > $OUT/ncu-pool.txt 2>&1
cat $OUT/ncu-pool.txt
echo "total $SECONDS s"
true
