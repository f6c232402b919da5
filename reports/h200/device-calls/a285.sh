#!/bin/bash
# Call 285. scripts/cupy_examples.py shown failing on a GPU: copies of kernels/README.md, each
# with one block broken as a caller might break it, must FAIL; the README itself must PASS.
# Run twice: first with the first block's grid half the rows (it PASSED: every kernel's blocks
# stride over the rows, so any grid is correct) and column_sum given half the partial rows; then
# (285b) with the first block told half the rows instead of the grid.
set -u
source reports/h200/device-calls/call_env.sh 285b
sed '0,/(y, h, x, r, w, rstd, cp.int32(rows), /s//(y, h, x, r, w, rstd, cp.int32(rows \/\/ 2), /' kernels/README.md > /tmp/half-rows.md
sed 's|       (dw, partial, cp.int32(G), cp.int32(d), cp.int32(d)))|       (dw, partial, cp.int32(G // 2), cp.int32(d), cp.int32(d)))|' kernels/README.md > /tmp/half-parts.md
for m in half-rows half-parts; do
  diff kernels/README.md /tmp/$m.md | head -4 >> $L
  timeout 120 python3 scripts/cupy_examples.py --readme /tmp/$m.md > $OUT/cupy-$m-285b.txt 2>&1
  echo "cupy_examples ($m) exit $? at $SECONDS s" >> $L
  grep -E "FAIL|PASS" $OUT/cupy-$m-285b.txt >> $L
done
timeout 120 python3 scripts/cupy_examples.py --json $OUT/cupy-285b.json > $OUT/cupy-285b.txt 2>&1
echo "cupy_examples (README) exit $? at $SECONDS s" >> $L
tail -1 $OUT/cupy-285b.txt >> $L
cat $L
