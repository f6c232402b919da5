#!/bin/bash
# Call 222: the evidence for main after this round (the phase, flat and packed kernels' whole
# 16-byte stores; LayerNorm's phase kernel joining its moments once; the flat TMA build at the
# sparse-tile widths): ladder bench and scripts/bench_peers.py in the same call, then every
# verify rung of every op, fixtures included, with the carried binary. Files go to $OUT.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT /tmp/t
B=$PWD/.device/ladder
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc
left() { local l=$(( $1 - SECONDS )); [ $l -lt 5 ] && l=5; echo $l; }
{ echo "# Call 222 ($LADDER_COMMIT, a222.sh)"; nvidia-smi --query-gpu=name,driver_version --format=csv
  echo "== bench"; (time timeout 170 $B bench --json $OUT/bench.json) 2>&1 | grep -E "copy ceiling|real"
  echo "== peers"; (time timeout 90 python3 scripts/bench_peers.py --json $OUT/peers.json > /tmp/t/peers.txt 2>&1) 2>&1 | grep real; tail -2 /tmp/t/peers.txt
} > $OUT/log-222.txt 2>&1
cat $OUT/log-222.txt
echo "bench done $SECONDS s"
timeout $(left 585) $B verify --jobs 14 --json $OUT/verify.json > $OUT/verify.txt 2>&1; echo "verify exit $?"
grep -E "FAIL|UNRESOLVED|XPASS|rungs:" $OUT/verify.txt | grep -v " PASS " | head -20
tail -3 $OUT/verify.txt
echo "total $SECONDS s"
true
