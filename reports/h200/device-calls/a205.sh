#!/bin/bash
# Call 205: where the backward's time goes at the shapes short of 0.75. For rmsnorm_bwd,
# layernorm_bwd and add_rmsnorm_bwd (bf16 8192x2049, 16384x2049, 2048x16384, 1024x32768): auto
# against the same op without a weight (no dw sums, no final reduce: weight=none, affine=0) and
# against the reduce launched plainly (pdl=0); then Nsight Compute's duration of each kernel of
# the op, caches as the op leaves them (--cache-control none). Files go to $OUT.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
B=$PWD/.device/ladder
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc
nvidia-smi -L
F=$OUT/bench-bwd-parts-205.txt
echo "# Call 205 ($LADDER_COMMIT, a205.sh): tags auto; nodw (weight=none / affine=0); nopdl (pdl=0). Cold. Columns: tag op dtype rows d impl hot cold hotGBps coldGBps frac same clean_us clean_frac." > $F
SH="--shape 8192x2049 --shape 16384x2049 --shape 2048x16384 --shape 1024x32768"
for rep in 1 2; do
  for tag in auto nodw nopdl; do
    for op in rmsnorm_bwd layernorm_bwd add_rmsnorm_bwd; do
      case $tag in
        auto) V="";;
        nodw) if [ $op = layernorm_bwd ]; then V="--variant affine=0"; else V="--variant weight=none"; fi;;
        nopdl) V="--variant pdl=0";;
      esac
      $B bench $op --dtype bf16 $SH $V --json /tmp/b.json > /tmp/b.txt 2>&1 || { echo "bench $op $tag failed"; tail -5 /tmp/b.txt; }
      python3 - "$tag" /tmp/b.json >> $F <<'PY'
import json, sys
tag, path = sys.argv[1], sys.argv[2]
b = json.load(open(path))
for r in b["results"]:
    if r.get("impl") != "ladder": continue
    print(f"{tag:6} {r['op']:16} {r['dtype']:5} {r['rows']:7} {r['d']:6} {r['hot_us']:9.2f} {r['cold_us']:9.2f} {r['cold_fraction']:6.3f} {r.get('cold_clean_us', 0):9.2f}  {r['geometry']}")
PY
    done
  done
done
cat $F
N=$OUT/ncu-bwd-parts-205.txt
echo "# Call 205: Nsight Compute, --cache-control none --clock-control none, the 3rd launch of the op's kernels of the op (warm-up over)" > $N
for op in rmsnorm_bwd layernorm_bwd add_rmsnorm_bwd; do
  for sh in 8192x2049 2048x16384 1024x32768; do
    echo "## $op bf16 $sh" >> $N
    timeout 120 ncu --cache-control none --clock-control none --launch-skip 4 --launch-count 2 \
      --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,sm__warps_active.avg.pct_of_peak_sustained_active \
      -k regex:"bwd|column_sum" $B bench $op --dtype bf16 --shape $sh --iters 4 2>&1 | grep -E "^\s+(void|ladder|gpu__|dram__|lts__|sm__)|^  [a-z_]+.*\(" >> $N
  done
done
cat $N
echo "total $SECONDS s"
true
