#!/bin/bash
# Call 116: bf16 and fp32 add_rmsnorm rows below d = 8192 back on the register kernel (call 114's
# bench had the row kernel 1 us behind it at bf16 16384x4096, as call 112's A/B did); bench and
# the peers again for the report, and ladder verify add_rmsnorm on the new plans.
set -u
export LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p /tmp/o $OUT
for s in bench peers; do
  (time SKIP_BUILD=1 PEERS_TIMEOUT=150 OUT=/tmp/o bash scripts/device_check.sh $s) > /tmp/o-$s.txt 2>&1
  grep -E "^==|exit|real" /tmp/o-$s.txt | head -6
  cp /tmp/o/bench.json /tmp/o/peers.json $OUT/ 2>/dev/null
done
timeout 150 .device/ladder verify add_rmsnorm --jobs 14 > /tmp/o/verify-add-116.txt 2>&1; echo "verify exit $?"
grep -E "FAIL|UNRESOLVED|XPASS|rungs:" /tmp/o/verify-add-116.txt | head -10 | tee $OUT/verify-add-116.txt
cat /tmp/o-bench.txt /tmp/o-peers.txt > $OUT/device_log_116.txt
true
