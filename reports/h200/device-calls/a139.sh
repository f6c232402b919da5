#!/bin/bash
# Call 139: (1) LayerNorm's row kernel holding its row packed as stored (4 registers a chunk, not
# 8 fp32 values) under a launch bound of 6144 / (THREADS x ITEMS) blocks an SM for 16-bit T
# (80 registers at 256 x 8: three rows an SM where two fit before), in a copy of kernels/
# carried as .device/kP, launched one block a row (row_grid=rows) so the SM holds what fits,
# against auto, the present row kernel at row_grid=rows, and the wide register kernel; (2) the
# new layernorm_fwd_rows (schedule=rows2|rows4) against auto at d = 1024 and 4096. Two repeats,
# cold. Then ladder verify layernorm on main's kernels (the rows variants included) and on kP.
set -u
B=$PWD/.device/ladder
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
run() { local k=$1; shift; LADDER_KERNELS_DIR=$k LADDER_CACHE_DIR=/tmp/lc-$(basename $k) timeout 60 $B "$@" 2>&1; }
K=$PWD/kernels; P=$PWD/.device/kP
ROWG="--variant schedule=row --variant row_grid=rows"
b() { local tag=$1; shift; run "$@" | grep -E " ladder |copy ceiling" | sed "s/^/$tag /"; }
{
for rep in 1 2; do
  for dt in bf16 f16; do
    b auto $K bench layernorm --dtype $dt --shape 4096x16384 --shape 8192x8192
    b row-rows $K bench layernorm --dtype $dt --shape 4096x16384 --shape 8192x8192 $ROWG
    b P-row-rows $P bench layernorm --dtype $dt --shape 4096x16384 --shape 8192x8192 $ROWG
    b wide $K bench layernorm --dtype $dt --shape 4096x16384 --variant schedule=wide
    b auto $K bench layernorm --dtype $dt --shape 65536x1024 --shape 16384x4096
    b rows2 $K bench layernorm --dtype $dt --shape 65536x1024 --shape 16384x4096 --variant schedule=rows2
    b rows4 $K bench layernorm --dtype $dt --shape 65536x1024 --variant schedule=rows4
  done
  b auto $K bench layernorm --dtype f32 --shape 65536x1024
  b rows2 $K bench layernorm --dtype f32 --shape 65536x1024 --variant schedule=rows2
  echo "rep $rep done at $SECONDS s" >&2
done
} > $OUT/bench-rows-packed.txt
echo "bench done at $SECONDS s"
grep -v "copy ceiling" $OUT/bench-rows-packed.txt | sort -k3,3 -k4,4n -k5,5n -k1,1 | awk '{print $1,$3,$4,$5,$8,$11}'
for k in $K $P; do
  if [ $SECONDS -lt 420 ]; then
    { echo "== $(basename $k): ladder verify layernorm"
      LADDER_KERNELS_DIR=$k LADDER_CACHE_DIR=/tmp/lc-$(basename $k) timeout $((560-SECONDS)) $B verify layernorm --jobs 14 2>&1 | grep -E "FAIL|UNRESOLVED|XPASS|rungs:" | head -30
      echo "exit ${PIPESTATUS[0]} at $SECONDS s"; } | tee -a $OUT/verify-139.txt
  else echo "$(basename $k) verify skipped at $SECONDS s" | tee -a $OUT/verify-139.txt; fi
done
echo "total $SECONDS s"
true
