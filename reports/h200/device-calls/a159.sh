#!/bin/bash
# Call 159: the bulk-copy backward kernels' block at bf16 2048x16384 (2048 chunks a row): auto's
# ITEMS 2 x 1024 threads (64 registers; LayerNorm's build spills inside its row loop, 101 MB of
# local loads in call 158) against ITEMS 4 x 512 (128 registers, no spills: ptxas sm_90), for
# the three ops, bf16 and f16, and LayerNorm with recomputed statistics. One binary, two
# repeats, cold.
set -u
B=$PWD/.device/ladder
export LADDER_COMMIT=${LADDER_COMMIT:?} LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc
mkdir -p $OUT
b() { local tag=$1; shift; timeout 60 $B bench "$@" 2>&1 | grep -E " ladder |copy ceiling|rror" | sed "s/^/$tag /"; }
{ for rep in 1 2; do
    for op in layernorm_bwd rmsnorm_bwd add_rmsnorm_bwd; do
      for dt in bf16 f16; do
        b auto $op --dtype $dt --shape 2048x16384
        b i4t512 $op --dtype $dt --shape 2048x16384 --variant schedule=bulk --variant bulk_items=4 --variant bulk_threads=512
      done
    done
    b auto-recompute layernorm_bwd --dtype bf16 --shape 2048x16384 --variant stats=recompute
    b i4t512-recompute layernorm_bwd --dtype bf16 --shape 2048x16384 --variant stats=recompute --variant schedule=bulk --variant bulk_items=4 --variant bulk_threads=512
    echo "rep $rep done at $SECONDS s" >&2
  done; } > $OUT/bench-bwd-bulk-block.txt
grep -v "copy ceiling" $OUT/bench-bwd-bulk-block.txt | awk '{print $1,$2,$3,$4,$5,$8,$11,$13,$14}' | sort -k2,2 -k3,3 -k4,4n -k1,1 -s
echo "total $SECONDS s"
true
