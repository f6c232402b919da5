#!/bin/bash
# Call 143: LayerNorm with its rows copied whole into shared-memory stages by the Tensor Memory
# Accelerator (schedule=bulk, kernels/layernorm_bulk.cuh), first on a GPU. The 24 bulk rungs of
# bulk-ladder.json (verify's bulk variants, small shapes plus five large ones) with every check;
# then the bulk schedule's ITEMS and stages against auto at the LayerNorm bench shapes, cold;
# then memcheck (bare allocations) over the bf16 bulk rungs. Files go to $OUT as each step ends.
set -u
B=$PWD/.device/ladder
export LADDER_COMMIT=${LADDER_COMMIT:?} LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc
mkdir -p $OUT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
{ echo "== ladder run --ladder reports/h200/bulk-ladder.json"
  timeout 240 $B run --ladder reports/h200/bulk-ladder.json --jobs 8 --timeout 60 --json $OUT/bulk-ladder-run.json 2>&1 | grep -vE " PASS " | tail -40
  echo "exit ${PIPESTATUS[0]} at $SECONDS s"; } | tee $OUT/bulk-ladder-143.txt | tail -8
b() { local tag=$1; shift; timeout 60 $B bench layernorm "$@" 2>&1 | grep -E " ladder |copy ceiling|rror" | sed "s/^/$tag /"; }
V="--variant schedule=bulk"
{
for dt in bf16 f16; do
  b auto --dtype $dt --shape 65536x1024 --shape 16384x4096 --shape 8192x8192 --shape 4096x16384 --shape 2048x32768
  b bulk --dtype $dt --shape 65536x1024 --shape 16384x4096 --shape 8192x8192 --shape 4096x16384 --shape 2048x32768 $V
  b bulk-s2 --dtype $dt --shape 65536x1024 --shape 16384x4096 --shape 8192x8192 --shape 4096x16384 --shape 2048x32768 $V --variant bulk_stages=2
  [ $dt = bf16 ] || continue
  b bulk-s4 --dtype $dt --shape 65536x1024 --shape 16384x4096 --shape 8192x8192 --shape 4096x16384 $V --variant bulk_stages=4
  b bulk-i2 --dtype $dt --shape 65536x1024 --shape 16384x4096 --shape 8192x8192 $V --variant bulk_items=2
  b bulk-i4 --dtype $dt --shape 65536x1024 --shape 16384x4096 --shape 8192x8192 --shape 4096x16384 $V --variant bulk_items=4
done
b auto --dtype f32 --shape 16384x4096 --shape 8192x8192 --shape 4096x16384
b bulk --dtype f32 --shape 16384x4096 --shape 8192x8192 --shape 4096x16384 $V
b bulk-i2 --dtype f32 --shape 16384x4096 --shape 8192x8192 $V --variant bulk_items=2
b bulk-i4 --dtype f32 --shape 16384x4096 --shape 8192x8192 $V --variant bulk_items=4
echo "rep 1 done at $SECONDS s" >&2
if [ $SECONDS -lt 400 ]; then
  b auto --dtype bf16 --shape 65536x1024 --shape 16384x4096 --shape 8192x8192 --shape 4096x16384 --shape 2048x32768
  b bulk --dtype bf16 --shape 65536x1024 --shape 16384x4096 --shape 8192x8192 --shape 4096x16384 --shape 2048x32768 $V
  b auto --dtype f32 --shape 16384x4096 --shape 8192x8192 --shape 4096x16384
  b bulk --dtype f32 --shape 16384x4096 --shape 8192x8192 --shape 4096x16384 $V
fi
} > $OUT/bench-bulk.txt
echo "bench done at $SECONDS s"
grep -v "copy ceiling" $OUT/bench-bulk.txt | sort -k3,3 -k4,4n -k5,5n -k1,1 | awk '{print $1,$3,$4,$5,$8,$11}'
if [ $SECONDS -lt 480 ]; then
  python3 -c "
import json; d=json.load(open('reports/h200/bulk-ladder.json'))
d['rungs']=[r for r in d['rungs'] if r['kernel']['dtype']=='bf16']
json.dump(d,open('/tmp/bulk-bf16.json','w'))"
  timeout $((585-SECONDS)) compute-sanitizer --tool memcheck --target-processes all --print-limit 5 $B run --ladder /tmp/bulk-bf16.json --bare-allocations --jobs 4 --timeout 200 > /tmp/mc143.txt 2>&1
  { echo "exit $?"; grep -E "ERROR SUMMARY|rungs:|Invalid|out of bounds" /tmp/mc143.txt | sort | uniq -c; } | tee $OUT/memcheck-bulk-143.txt
else echo "memcheck skipped at $SECONDS s"; fi
echo "total $SECONDS s"
true
