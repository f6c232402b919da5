#!/bin/bash
# Call 210 (inline, 92a5d29's binary): call 209's verify stopped at its time limit with 76
# fixture rungs not yet run and one interrupted; every fixture rung again. (Its first command,
# the device build's tests, found no build on the fresh machine; call 211 built it.)
mkdir -p $OUT; export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc
(time timeout 300 .device/ladder verify --fixtures-only --jobs 14 --json $OUT/verify-fixtures-210.json > $OUT/verify-fixtures-210.txt 2>&1) 2>&1 | grep real
grep -E "FAIL|UNRESOLVED|XPASS|rungs:" $OUT/verify-fixtures-210.txt | head
