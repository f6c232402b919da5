#!/bin/bash
# Call 106: the report's evidence on main with the decode kernels (bf98d8b's kernels; the
# runner now starts the rungs with the most cases first when it runs several at once), on the
# carried binary: verify (every op, dtype and variant, fixtures included) and its worst-error
# tables, bench, the peers, Nsight Compute's decode times, memcheck (shown red, then the forward
# and backward bf16 rungs). Each step's files land in $OUT as soon as it ends.
set -u
export LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p /tmp/o $OUT
for s in verify worst bench peers decode memcheck; do
  (time SKIP_BUILD=1 PEERS_TIMEOUT=150 OUT=/tmp/o bash scripts/device_check.sh $s) > /tmp/o-$s.txt 2>&1
  grep -E "^==|exit|rungs:|real|SUMMARY" /tmp/o-$s.txt | head -12
  cp -r /tmp/o/. $OUT/ 2>/dev/null
done
cat /tmp/o/ncu-decode.txt
cat /tmp/o-verify.txt /tmp/o-worst.txt /tmp/o-bench.txt /tmp/o-peers.txt /tmp/o-decode.txt /tmp/o-memcheck.txt > $OUT/device_log.txt
true
