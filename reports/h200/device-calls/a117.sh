#!/bin/bash
# Call 117: four chunks a thread in the row-a-block kernels (row_items=4; up to 1024 threads at 64
# registers, twice the warps of ITEMS 8 for the same row) against ITEMS 8, one binary, two
# repeats, cold: add_rmsnorm and rmsnorm at d = 32768 (where add_rmsnorm trails Triton and
# rmsnorm's staged schedule wins), rmsnorm at d = 4096 and 8192. This binary's
# auto takes ITEMS 4 for add_rmsnorm rows of more than 2048 chunks; then ladder verify --quick of
# the three forward ops (the row_items=4 variants included), bench and the peers, in the order
# that matters should the session's device time run out.
set -u
B=$PWD/.device/ladder
export LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p /tmp/o $OUT
{
for rep in 1 2; do
  for it in 8 4; do
    timeout 60 $B bench add_rmsnorm --dtype bf16 --shape 512x32768 --shape 2048x32768 --variant schedule=row --variant row_items=$it 2>&1 | grep " ladder" | sed "s/^/items=$it /"
    timeout 60 $B bench rmsnorm --dtype bf16 --shape 2048x32768 --shape 16384x4096 --shape 8192x8192 --variant schedule=row --variant row_items=$it 2>&1 | grep " ladder" | sed "s/^/items=$it /"
  done
done
} > /tmp/o/bench-row-items.txt 2>&1
sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1 /tmp/o/bench-row-items.txt | awk '{print $1,$2,$3,$4,$5,$8,$NF}'
cp /tmp/o/bench-row-items.txt $OUT/
timeout 120 $B verify rmsnorm add_rmsnorm layernorm --quick --jobs 14 > /tmp/o/verify-117.txt 2>&1; echo "verify exit $?"
grep -E "FAIL|UNRESOLVED|XPASS|rungs:" /tmp/o/verify-117.txt | head -10 | tee $OUT/verify-117.txt
(SKIP_BUILD=1 PEERS_TIMEOUT=60 OUT=/tmp/o2 bash scripts/device_check.sh bench peers) > /tmp/o-bp.txt 2>&1
grep -E "exit" /tmp/o-bp.txt; cp /tmp/o2/bench.json /tmp/o2/peers.json $OUT/ 2>/dev/null; cp /tmp/o-bp.txt $OUT/device_log_117.txt
true
