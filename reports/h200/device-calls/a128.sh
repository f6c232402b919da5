#!/bin/bash
# Call 128: the report's evidence for the backward's programmatic reduces and LayerNorm's paired
# dgamma/dbeta reduce (auto since call 127), on the carried binary: verify (every op, dtype and
# variant, fixtures included, pdl=0 and column_sums=separate among them) and its worst-error
# tables, bench, the peers, memcheck (shown red, then the forward and backward bf16 rungs), and
# both ladders with the isolation-overhead benchmark (the launch path changed:
# toolchain::launch). The forward kernels are unchanged since dbd9da5.
set -u
export LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p /tmp/o $OUT
for s in verify worst bench peers memcheck ladders; do
  (time SKIP_BUILD=1 PEERS_TIMEOUT=150 OUT=/tmp/o bash scripts/device_check.sh $s) > /tmp/o-$s.txt 2>&1
  grep -E "^==|exit|rungs:|real|SUMMARY|overhead" /tmp/o-$s.txt | head -12
  cp -r /tmp/o/. $OUT/ 2>/dev/null
done
cat /tmp/o-verify.txt /tmp/o-worst.txt /tmp/o-bench.txt /tmp/o-peers.txt /tmp/o-memcheck.txt > $OUT/device_log.txt
cp /tmp/o-ladders.txt $OUT/device_log_ladders.txt
ls $OUT
true
