#!/bin/bash
# Call 180 (the same machine and commit as call 179): verify of the three backward ops, every
# dtype and variant, fixtures included, the bulk_cluster rungs among them. Files go to $OUT.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
export LADDER_CACHE_DIR=/tmp/lc LADDER_KERNELS_DIR=$PWD/kernels
B=$PWD/.device/ladder
timeout 500 $B verify layernorm_bwd rmsnorm_bwd add_rmsnorm_bwd --json $OUT/verify-bwd-180.json > /tmp/v180.txt 2>&1
echo "exit $?" >> /tmp/v180.txt
grep -vE "PASS " /tmp/v180.txt | tail -40 > $OUT/verify-bwd-180.txt
grep -E "rungs:|exit" /tmp/v180.txt
grep -E "FAIL|UNRESOLVED|XPASS" /tmp/v180.txt | head
echo "total $SECONDS s"
true
