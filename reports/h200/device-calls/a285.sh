#!/bin/bash
# Call 285. scripts/cupy_examples.py shown failing on a GPU: copies of kernels/README.md, each
# with one block broken as a caller might break it (the first block's grid half the rows; the
# backward's column_sum given half the partial rows), must FAIL; the README itself must PASS.
set -u
source reports/h200/device-calls/call_env.sh 285
sed 's|^grid = ((rows + rpb - 1) // rpb,)|grid = ((rows + rpb - 1) // rpb // 2,)|' kernels/README.md > /tmp/half-grid.md
sed 's|       (dw, partial, cp.int32(G), cp.int32(d), cp.int32(d)))|       (dw, partial, cp.int32(G // 2), cp.int32(d), cp.int32(d)))|' kernels/README.md > /tmp/half-parts.md
for m in half-grid half-parts; do
  diff kernels/README.md /tmp/$m.md | head -4 >> $L
  timeout 120 python3 scripts/cupy_examples.py --readme /tmp/$m.md > $OUT/cupy-$m-285.txt 2>&1
  echo "cupy_examples ($m) exit $? at $SECONDS s" >> $L
  grep -E "FAIL|PASS" $OUT/cupy-$m-285.txt >> $L
done
timeout 120 python3 scripts/cupy_examples.py --json $OUT/cupy-285.json > $OUT/cupy-285.txt 2>&1
echo "cupy_examples (README) exit $? at $SECONDS s" >> $L
tail -1 $OUT/cupy-285.txt >> $L
cat $L
