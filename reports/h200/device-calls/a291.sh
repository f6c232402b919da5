#!/bin/bash
# Call 291. 1. kernels/README.md's CuPy examples, now eight blocks (the eighth launches
# rmsnorm_fwd on PyTorch tensors through DLPack, both libraries on one CuPy stream), run as written by
# scripts/cupy_examples.py. 2. On an H200, call 282's program after them (a282.sh, sourced: its
# limits count from this call's start; END, the verify's last second, from the caller).
# Carried: .device/ladder.xz (the checkout's build). Files go to $OUT.
set -u
source reports/h200/device-calls/call_env.sh 291
PYTHONUNBUFFERED=1 timeout 150 python3 scripts/cupy_examples.py --json $OUT/cupy-291.json > $OUT/cupy-291.txt 2>&1
echo "cupy_examples (README) exit $? at $SECONDS s" >> $L
cat $OUT/cupy-291.txt >> $L
python3 -c "import torch; print('torch', torch.__version__)" >> $L 2>&1
if [[ $card == *H200* ]]; then source reports/h200/device-calls/a282.sh; fi
cat $L
echo "total $SECONDS s"
