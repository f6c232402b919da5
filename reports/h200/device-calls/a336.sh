#!/bin/bash
# Call 336 (and later calls by CALL), for a call with less device time than a335.sh's racecheck
# wants. On an H200: a306.sh's program (with END under 585, call 296's: the bench of record and
# the decode row's peers first). On any other card: memcheck with bare allocations over the f16
# quick rungs of all six ops until MEM_END (default END*3/4, END default 560), then what time is
# left of a335.sh's racecheck (the f32 quick rungs of the backward ops) until END; each cut by
# ladder_ops (call_env.sh) if it runs long, keeping what finished. memcheck has covered bf16
# (every op) and, since call 334, f32; f16 takes the 16-bit kernels' chunk widths but its own
# instantiations, and was the one dtype left.
# Call 334 ran the f32 rungs in 360 s. Check with sanitizer_cover.py against
# reports/h100/quick-f16-ladder.json.gz.
# Carried: .device/ladder.xz (the checkout's build: eaddd79's from round 65 on). Files go to $OUT.
set -u
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
if [[ $card == *H200* ]]; then CALL=${CALL:-336} exec bash reports/h200/device-calls/a306.sh; fi
n=${CALL:-336}
source reports/h200/device-calls/call_env.sh $n
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc-$n
mem_end=${MEM_END:-$(( ${END:-560} * 3 / 4 ))}
VERIFY_UNDER="$sanitizer memcheck" verify_ops memcheck-f16-$n $mem_end \
  rmsnorm add_rmsnorm layernorm rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd \
  --dtype f16 --quick --no-fixtures --bare-allocations
VERIFY_UNDER="$sanitizer racecheck" verify_ops racecheck-f32-bwd-$n ${END:-560} \
  rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd --dtype f32 --quick --no-fixtures
cat $L
echo "total $SECONDS s"
