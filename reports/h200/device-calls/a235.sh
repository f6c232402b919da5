#!/bin/bash
# Call 235: main after calls 233-234's results went in: auto pools layernorm_bwd's 16-bit
# weight-gradient partial rows (bulk_pool=2 where rows are 1025-2048 chunks), and LayerNorm's
# phase kernel keeps 16-bit rows unpacked once. Bench, two rounds: layernorm_bwd bf16 and f16 at
# 2048x16384, 4096x16384 and 2048x12288, auto against bulk_pool=1 (`ladder compare
# --across-variants`); layernorm at the phase kernel's widths, against call 234's base documents
# (reports/h200/bench-ln-phase-base-*-234.json). Carried: .device/ladder (main's build, stripped).
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
B=$PWD/.device/ladder
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc
mkdir -p $OUT
b() { local json=$1; shift; timeout 90 $B bench "$@" --json $json 2>&1 | grep -E " ladder |copy ceiling|rror"; }
S="--shape 2048x16384 --shape 4096x16384 --shape 2048x12288"
{ for rep in 1 2; do
    for dt in bf16 f16; do
      b $OUT/b-lnbwd-auto-$dt-$rep.json layernorm_bwd --dtype $dt $S | sed "s/^/auto /"
      b $OUT/b-lnbwd-pool1-$dt-$rep.json layernorm_bwd --dtype $dt $S --variant schedule=bulk --variant bulk_pool=1 | sed "s/^/pool1 /"
    done
    for dt in bf16 f16 f32; do
      b $OUT/b-ln-$dt-$rep.json layernorm --dtype $dt --shape 16384x2049 --shape 8192x3073 --shape 16384x1025 --shape 4096x5125 | sed "s/^/ln /"
    done
    echo "round $rep done at $SECONDS s" >&2
  done
  for dt in bf16 f16; do
    echo "== compare layernorm_bwd $dt, bulk_pool=1 -> auto (pooled), round 2"
    $B compare --across-variants $OUT/b-lnbwd-pool1-$dt-2.json $OUT/b-lnbwd-auto-$dt-2.json | grep -vE "^$" | head -8
  done
  for dt in bf16 f16 f32; do
    echo "== compare layernorm $dt, call 234's base -> main, round 2"
    $B compare reports/h200/bench-ln-phase-base-$dt-234.json $OUT/b-ln-$dt-2.json | grep -vE "^$" | head -9
  done
} > $OUT/bench-235.txt 2>&1
cat $OUT/bench-235.txt
echo "total $SECONDS s"
true
