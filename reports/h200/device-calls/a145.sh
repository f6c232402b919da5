#!/bin/bash
# Call 145: the bulk-copy LayerNorm as main now has it (ITEMS 4 by default, no L2 hint on the
# copies: call 144's kA) against auto at the LayerNorm bench shapes, two repeats; every cold time
# now also taken with a clean L2 (harness/bench/l2_flush.h: the flush's dirty lines read out
# before the timed launch). Then the bulk rungs again on the changed kernel, and `ladder bench`
# and `scripts/bench_peers.py` in full, both with the clean timings. Files go to $OUT as each
# step ends.
set -u
B=$PWD/.device/ladder
export LADDER_COMMIT=${LADDER_COMMIT:?} LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc
mkdir -p $OUT
b() { local tag=$1; shift; timeout 90 $B bench layernorm "$@" 2>&1 | grep -E " ladder |copy ceiling|rror" | sed "s/^/$tag /"; }
V="--variant schedule=bulk"
S16="--shape 65536x1024 --shape 16384x4096 --shape 8192x8192 --shape 4096x16384 --shape 2048x32768"
S32="--shape 16384x4096 --shape 8192x8192 --shape 4096x16384"
{
for rep in 1 2; do
  for dt in bf16 f16; do
    b auto --dtype $dt $S16
    b bulk --dtype $dt $S16 $V
  done
  b auto --dtype f32 $S32
  b bulk --dtype f32 $S32 $V
  echo "rep $rep done at $SECONDS s" >&2
done
} > $OUT/bench-bulk-3.txt
echo "bench sweep done at $SECONDS s"
grep -v "copy ceiling" $OUT/bench-bulk-3.txt | sort -k3,3 -k4,4n -k5,5n -k1,1 | awk '{print $1,$3,$4,$5,$8,$11,"clean",$13,$14}'
{ echo "== ladder run --ladder reports/h200/bulk-ladder.json"
  timeout 200 $B run --ladder reports/h200/bulk-ladder.json --jobs 8 --timeout 60 --json $OUT/bulk-ladder-run.json 2>&1 | grep -vE " PASS " | tail -40
  echo "exit ${PIPESTATUS[0]} at $SECONDS s"; } | tee $OUT/bulk-ladder-145.txt | tail -4
{ echo "== ladder bench (default shapes)"; timeout 150 $B bench --json $OUT/bench.json 2>&1; echo "exit $? at $SECONDS s"; } > $OUT/bench-145.txt
tail -3 $OUT/bench-145.txt
{ echo "== bench_peers.py"; timeout $((570-SECONDS)) python3 scripts/bench_peers.py --json $OUT/peers.json 2>&1; echo "exit $? at $SECONDS s"; } > $OUT/peers-145.txt
grep -E "layernorm .*(4096x16384|16384x4096)|add_rmsnorm .*512x32768|exit|ceiling" $OUT/peers-145.txt
echo "total $SECONDS s"
true
