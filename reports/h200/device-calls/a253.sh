#!/bin/bash
# Call 253: on an H200 only, every verify rung of every op (the done-when asks it of the
# H200; call 251 ran it on an H100). No bench: call 249's, the bench of record, ran on the same
# kernels. On any other card it does nothing: call 251 already verified these kernels there.
# Carried: .device/ladder (main's build, stripped). Files go to $OUT.
set -u
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
if [[ $card != *H200* ]]; then echo "# Call 253: $card, not an H200: nothing run"; exit 0; fi
CALL=253 BENCH=0 bash reports/h200/device-calls/a251.sh
