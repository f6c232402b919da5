#!/bin/bash
# Call 71: the report's evidence set on the packed-span kernels and the auto rule that takes them
# (verify, worst, bench, peers, ladders, forward racecheck, decode), then the rule's smallest rows
# (4096) and layernorm fp32 against schedule=regs.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
SKIP_BUILD=1 OUT=/tmp/o bash scripts/device_check.sh verify worst bench peers ladders sanitize decode
B=$PWD/.device/ladder
export LADDER_CACHE_DIR=/tmp/lc
for rep in 1 2; do
  for sc in auto regs; do
    $B bench rmsnorm add_rmsnorm --dtype bf16 --shape 4096x2049 --shape 4096x769 --variant schedule=$sc 2>&1 | grep " ladder" | sed "s/^/$sc /"
    $B bench layernorm --dtype f32 --shape 4096x2049 --shape 16384x2049 --variant schedule=$sc 2>&1 | grep " ladder" | sed "s/^/$sc /"
  done
done > /tmp/o/bench-packed-rule.txt 2>&1
awk '{print $1,$2,$3,$4,$5,$8,$NF}' /tmp/o/bench-packed-rule.txt | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1
cp /tmp/o/*.json /tmp/o/*.txt $OUT/ 2>/dev/null
true
