#!/bin/bash
# Call 251: the evidence for main's kernels as they stand: every verify rung of every op,
# fixtures included (the last full run was call 239's, on an H100, before norm::Standardize and
# the row-a-block kernels' kept reads), then, with BENCH=1, main's bench of record.
# Carried: .device/ladder (main's build, stripped). Files go to $OUT.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
B=$PWD/.device/ladder
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc
left() { local l=$(( $1 - SECONDS )); [ $l -lt 5 ] && l=5; echo $l; }
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "# Call ${CALL:-251} ($LADDER_COMMIT, a251.sh) on $card, driver $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)"
timeout $(left ${VERIFY_S:-500}) $B verify --jobs 14 --json $OUT/verify.json > $OUT/verify.txt 2>&1; echo "verify exit $? at $SECONDS s"
grep -E "FAIL|UNRESOLVED|XPASS|rungs:" $OUT/verify.txt | grep -v " PASS " | head -20
gzip $OUT/verify.json 2>/dev/null
if [ "${BENCH:-0}" = 1 ] && [[ $card == *H200* ]]; then
  timeout $(left 590) $B bench --json $OUT/bench.json 2>&1 | grep -E "copy ceiling"
fi
echo "total $SECONDS s"
true
