#!/bin/bash
# Call 123: the report's evidence for this round's planner (LayerNorm: ITEMS 4 at 16-bit rows of
# 512-1024 chunks, the resident grid from 2048 chunks, the row kernel up to 4096 chunks; the
# row_grid=3 verify variants) and bench (a same-size copy beside every case, LayerNorm at every
# target width), on the carried binary: verify (every op, dtype and variant, fixtures included)
# and its worst-error tables, bench, the peers, memcheck (shown red, then the forward and backward
# bf16 rungs). The kernels' sources are unchanged since dbd9da5.
set -u
export LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p /tmp/o $OUT
for s in verify worst bench peers memcheck; do
  (time SKIP_BUILD=1 PEERS_TIMEOUT=150 OUT=/tmp/o bash scripts/device_check.sh $s) > /tmp/o-$s.txt 2>&1
  grep -E "^==|exit|rungs:|real|SUMMARY" /tmp/o-$s.txt | head -12
  cp -r /tmp/o/. $OUT/ 2>/dev/null
done
cat /tmp/o-verify.txt /tmp/o-worst.txt /tmp/o-bench.txt /tmp/o-peers.txt /tmp/o-memcheck.txt > $OUT/device_log.txt
ls $OUT
true
