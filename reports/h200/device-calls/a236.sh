#!/bin/bash
# Call 236: the streamed kernels' rows held in registers (loop_hold, kernels/held_row.cuh), which
# have not run on the H200 before. Call 235 had both streamed kernels' L2 84-90% busy and
# LayerNorm 12% slower than RMSNorm with the same DRAM bytes (gamma and beta not the cause): every
# pass after the first is a round trip a row waits for. Held, a row is read once and every pass
# runs over registers. ptxas sm_90: RMSNorm HOLD 4 40 registers, no spills; LayerNorm 40 with
# 64 bytes of stack (patches/held-1280.patch: 48 at 128-256 threads, 32 bytes; 64 and none at 512).
# Part 1: every held verify rung (RMSNorm and LayerNorm, three dtypes). Part 2: bench, two rounds,
# cold, auto against held at the bench's widths, main's tree and the 1280 tree. Part 3: Nsight
# Compute of LayerNorm and RMSNorm bf16 4096x16384, auto and held.
# Carried: .device/ladder (this tree's build, stripped).
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
B=$PWD/.device/ladder
P=$PWD/reports/h200/device-calls/patches
mkdir -p $OUT /tmp/k1
apply() { (cd $1 && { patch -s -p1 < $2 2>/dev/null || git apply -p1 $2; }) || { echo "$2 did not apply"; exit 1; }; }
cp -r kernels /tmp/k1/ && apply /tmp/k1 $P/held-1280.patch
declare -A TREE=([main]=$PWD/kernels [r1280]=/tmp/k1/kernels)
left() { local l=$(( $1 - SECONDS )); [ $l -lt 5 ] && l=5; echo $l; }
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc-main
$B verify rmsnorm layernorm --write-ladder /tmp/v.json > /dev/null 2>&1
python3 - <<'PY'
import json
d = json.load(open('/tmp/v.json'))
d['rungs'] = [r for r in d['rungs'] if 'loop_hold' in r['name']]
json.dump(d, open('/tmp/v-held.json', 'w'))
print(len(d['rungs']), 'held rungs')
PY
timeout 200 $B run --ladder /tmp/v-held.json --jobs 14 --json $OUT/verify-held.json > $OUT/verify-held.txt 2>&1
echo "verify exit $?"; grep -E "FAIL|UNRESOLVED|XPASS|rungs:" $OUT/verify-held.txt | head -12
b() { # tree tag dtype op args...
  local tree=$1 tag=$2 dt=$3 op=$4; shift 4
  LADDER_KERNELS_DIR=${TREE[$tree]} LADDER_CACHE_DIR=/tmp/lc-$tree timeout 90 $B bench $op --dtype $dt "$@" \
    --json $OUT/b-$tree-$tag-$op-$dt-$rep.json 2>&1 | grep -E " ladder |rror" | sed "s/^/$tree $tag /"
}
L="--variant schedule=loop"
S3="--shape 16384x4096 --shape 8192x8192 --shape 4096x16384"
{ for rep in 1 2; do
    for op in layernorm rmsnorm; do
      b main auto bf16 $op $S3 --shape 2048x32768 --shape 65536x1024
      b main held4 bf16 $op $S3 $L --variant loop_hold=4
      b r1280 held4 bf16 $op $S3 $L --variant loop_hold=4
      b main held8 bf16 $op --shape 2048x32768 $L --variant loop_hold=8
      b main held4t1024 bf16 $op --shape 2048x32768 $L --variant loop_hold=4 --variant loop_threads=1024
      b main held2t64 bf16 $op --shape 65536x1024 $L --variant loop_hold=2 --variant loop_threads=64
      b main held4t128 bf16 $op --shape 65536x1024 $L --variant loop_hold=4 --variant loop_threads=128
      b main auto f32 $op --shape 16384x4096 --shape 4096x16384
      b main held4 f32 $op --shape 16384x4096 $L --variant loop_hold=4
      b main held4t1024 f32 $op --shape 4096x16384 $L --variant loop_hold=4 --variant loop_threads=1024
      if [ $rep = 1 ]; then b main auto f16 $op $S3; b main held4 f16 $op $S3 $L --variant loop_hold=4; fi
    done
    echo "round $rep done at $SECONDS s" >&2
  done
} > $OUT/bench-held.txt 2>&1
cat $OUT/bench-held.txt
echo "bench done $SECONDS s"
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,l1tex__t_bytes.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,launch__registers_per_thread,l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum
n() { # title op args...
  local title=$1 op=$2; shift 2
  [ $SECONDS -gt 540 ] && { echo "## $title skipped at $SECONDS s"; return; }
  echo "## $title"
  timeout $(left 580) ncu --target-processes all --clock-control none --cache-control all --metrics $M \
    -k regex:"$op" --launch-skip 3 --launch-count 1 \
    $B bench $op --dtype bf16 --iters 3 "$@" 2>&1 | grep -E "^ +[a-z]|$op" | head -16
}
{ n "layernorm bf16 4096x16384 held4" layernorm --shape 4096x16384 $L --variant loop_hold=4
  n "rmsnorm bf16 4096x16384 held4" rmsnorm --shape 4096x16384 $L --variant loop_hold=4
  n "layernorm bf16 4096x16384 auto" layernorm --shape 4096x16384
} > $OUT/ncu-held.txt 2>&1
cat $OUT/ncu-held.txt
cd $OUT && tar czf /tmp/x.tgz . && find . -mindepth 1 -delete && mv /tmp/x.tgz $OUT/a236.tgz
echo "total $SECONDS s"
true
