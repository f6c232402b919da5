#!/bin/bash
# Call 287. 1. kernels/README.md's CuPy examples, now seven blocks (every op, forward and
# backward), run as written by scripts/cupy_examples.py, then two broken copies that must FAIL
# (the first block told half the rows; column_sum given half the partial rows). 2. On an H200,
# call 282's program after them (a282.sh, sourced: its limits count from this call's start).
# Carried: .device/ladder.xz (the checkout's build). Files go to $OUT.
set -u
source reports/h200/device-calls/call_env.sh 287
PYTHONUNBUFFERED=1 timeout 150 python3 scripts/cupy_examples.py --json $OUT/cupy-287.json > $OUT/cupy-287.txt 2>&1
echo "cupy_examples (README) exit $? at $SECONDS s" >> $L
cat $OUT/cupy-287.txt >> $L
sed '0,/(y, h, x, r, w, rstd, cp.int32(rows), /s//(y, h, x, r, w, rstd, cp.int32(rows \/\/ 2), /' kernels/README.md > /tmp/half-rows.md
sed 's|       (dw, partial, cp.int32(G), cp.int32(d), cp.int32(d)))|       (dw, partial, cp.int32(G // 2), cp.int32(d), cp.int32(d)))|' kernels/README.md > /tmp/half-parts.md
for m in half-rows half-parts; do
  diff kernels/README.md /tmp/$m.md >> $L
  timeout 120 python3 scripts/cupy_examples.py --readme /tmp/$m.md > $OUT/cupy-$m-287.txt 2>&1
  echo "cupy_examples ($m) exit $? at $SECONDS s" >> $L
  grep -E "FAIL" $OUT/cupy-$m-287.txt >> $L
done
if [[ $card == *H200* ]]; then source reports/h200/device-calls/a282.sh; fi
cat $L
echo "total $SECONDS s"
