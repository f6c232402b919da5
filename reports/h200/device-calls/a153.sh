#!/bin/bash
# Call 153: the bulk-copy LayerNorm backward (layernorm_bwd_bulk, schedule=bulk: rows of x and dy
# copied whole into shared-memory stages by the Tensor Memory Accelerator, the dgamma and dbeta
# sums in registers) against auto's register kernel (0.67 of the copy ceiling at bf16 4096x8192
# in call 151); its rungs (bwd-bulk-ladder.json: verify's bulk variants with four large shapes)
# under ladder run, then memcheck; ladder verify layernorm_bwd. Then the LayerNorm register kernel
# at 48 registers (a copy of kernels/ by sed: __launch_bounds__(64, 20), ptxas 36-48 bytes of
# spills, 40 warps an SM against 32) at two rows a block, and the new two-rows-a-block rule at
# widths call 152 did not measure (rpb=8 pins the old one). One binary, two repeats, cold.
set -u
B=$PWD/.device/ladder
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
K=$PWD/kernels
b() { local tag=$1 k=$2; shift 2; LADDER_KERNELS_DIR=$k LADDER_CACHE_DIR=/tmp/lc-$(basename $k) timeout 90 $B bench "$@" 2>&1 | grep -E " ladder |copy ceiling|rror" | sed "s/^/$tag /"; }
{ for rep in 1 2; do
    for dt in bf16 f16 f32; do
      S="layernorm_bwd --dtype $dt --shape 4096x8192 --shape 16384x4096"
      b auto $K $S
      b bulk $K $S --variant schedule=bulk
      [ $dt = f32 ] && continue
      b bulk-i2 $K $S --variant schedule=bulk --variant bulk_items=2
      b bulk-i4 $K $S --variant schedule=bulk --variant bulk_items=4
      b bulk-s3 $K $S --variant schedule=bulk --variant bulk_stages=3
    done
    b auto $K layernorm_bwd --dtype bf16 --shape 65536x1024 --shape 2048x16384
    b bulk $K layernorm_bwd --dtype bf16 --shape 65536x1024 --shape 2048x16384 --variant schedule=bulk
    b recompute $K layernorm_bwd --dtype bf16 --shape 4096x8192 --variant stats=recompute
    b bulk-recompute $K layernorm_bwd --dtype bf16 --shape 4096x8192 --variant stats=recompute --variant schedule=bulk
    echo "rep $rep bwd done at $SECONDS s" >&2
  done; } > $OUT/bench-bwd-bulk.txt
grep -v "copy ceiling" $OUT/bench-bwd-bulk.txt | sort -k3,3 -k4,4n -k5,5n -k1,1 -s | awk '{print $1,$3,$4,$5,$8,$11,"clean",$13,$14}'
{ echo "== ladder run --ladder reports/h200/bwd-bulk-ladder.json"
  LADDER_KERNELS_DIR=$K LADDER_CACHE_DIR=/tmp/lc-r timeout 150 $B run --ladder reports/h200/bwd-bulk-ladder.json --jobs 8 --timeout 60 2>&1 | grep -vE " PASS " | tail -30
  echo "exit ${PIPESTATUS[0]} at $SECONDS s"; } | tee $OUT/bwd-bulk-ladder-153.txt | tail -4
{ echo "== ladder verify layernorm_bwd"
  LADDER_KERNELS_DIR=$K LADDER_CACHE_DIR=/tmp/lc-v timeout 150 $B verify layernorm_bwd --jobs 14 2>&1 | grep -E "FAIL|UNRESOLVED|XPASS|rungs:" | tail -20
  echo "exit ${PIPESTATUS[0]} at $SECONDS s"; } | tee $OUT/verify-153.txt | tail -3
rm -rf /tmp/KB20; cp -r $K /tmp/KB20
python3 - <<'PY'
p='/tmp/KB20/layernorm.cuh'; s=open(p).read()
a='__global__ void __launch_bounds__(MAX_THREADS)\n    layernorm_fwd('
assert a in s; open(p,'w').write(s.replace(a,'__global__ void __launch_bounds__(64, 20)\n    layernorm_fwd('))
PY
{ for rep in 1 2; do
    for spec in "--dtype bf16 --shape 65536x1024" "--dtype f16 --shape 65536x1024" "--dtype bf16 --shape 65536x768"; do
      b K $K layernorm $spec
      b KB20 /tmp/KB20 layernorm $spec
    done
    for spec in "layernorm --dtype bf16 --shape 65536x769" "rmsnorm --dtype bf16 --shape 65536x769" "layernorm --dtype bf16 --shape 300x1024" "rmsnorm --dtype f16 --shape 65536x768"; do
      b auto $K $spec
      b rpb8 $K $spec --variant rpb=8
    done
  done; } > $OUT/bench-layernorm-occupancy.txt
grep -v "copy ceiling" $OUT/bench-layernorm-occupancy.txt | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1 -s | awk '{print $1,$2,$3,$4,$5,$8,$11,"clean",$13,$14}'
if [ $SECONDS -lt 470 ]; then
  python3 -c "
import json; d=json.load(open('reports/h200/bwd-bulk-ladder.json'))
d['rungs']=[r for r in d['rungs'] if r['kernel']['dtype']=='bf16']
json.dump(d,open('/tmp/bwd-bulk-bf16.json','w'))"
  LADDER_KERNELS_DIR=$K LADDER_CACHE_DIR=/tmp/lc-r timeout $((585-SECONDS)) compute-sanitizer --tool memcheck --target-processes all --print-limit 5 $B run --ladder /tmp/bwd-bulk-bf16.json --bare-allocations --jobs 4 --timeout 200 > /tmp/mc153.txt 2>&1
  { echo "exit $?"; grep -E "ERROR SUMMARY|rungs:|Invalid|out of bounds" /tmp/mc153.txt | sort | uniq -c; } | tee $OUT/memcheck-bwd-bulk-153.txt
else echo "memcheck skipped at $SECONDS s"; fi
echo "total $SECONDS s"
true
