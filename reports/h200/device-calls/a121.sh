#!/bin/bash
# Call 121: row_grid=resident (the row kernels on as many blocks as the SMs hold, each walking
# rows with its weights staged once) against one block a row, for the three forward ops at the
# shapes auto gives the row kernels; one binary, two repeats, cold. Then the row_grid=3 rungs of
# the verify grid with 4096x8192 and 700x4096 added (exp/row-grid-ladder.json).
set -u
B=$PWD/.device/ladder
export LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p /tmp/o $OUT
bench() { timeout 90 $B bench "$@" 2>&1 | grep -E " ladder |copy ceiling"; }
{
for rep in 1 2; do
  for grid in rows resident; do
    bench layernorm --shape 16384x4096 --shape 8192x8192 --shape 4096x16384 --variant schedule=row --variant row_grid=$grid | sed "s/^/$grid /"
    bench rmsnorm --shape 16384x4096 --shape 8192x8192 --shape 4096x16384 --variant schedule=row --variant row_grid=$grid | sed "s/^/$grid /"
    bench add_rmsnorm --dtype bf16 --shape 512x32768 --shape 8192x8192 --shape 4096x16384 --variant schedule=row --variant row_grid=$grid | sed "s/^/$grid /"
  done
done
} > /tmp/o/bench-row-grid.txt 2>&1
grep -v "copy ceiling" /tmp/o/bench-row-grid.txt | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1 | awk '{print $1,$2,$3,$4,$5,$8,$11,$12}'
grep "copy ceiling" /tmp/o/bench-row-grid.txt | awk '{print $4}' | sort -n | tr '\n' ' '
cp /tmp/o/bench-row-grid.txt $OUT/
timeout 150 $B run --ladder exp/row-grid-ladder.json --jobs 9 --timeout 60 > /tmp/o/row-grid-rungs.txt 2>&1; echo "row-grid rungs exit $?"
grep -E "PASS|FAIL|UNRESOLVED|rungs:" /tmp/o/row-grid-rungs.txt | head -12 | tee $OUT/row-grid-rungs.txt
true
