#!/bin/bash
# Run on a build with ITEMS 3 compiled for the backward kernels (not kept: no gain at d = 2049);
# exp/kernels_ahead was that build's kernels with rmsnorm_bwd loading ITEMS 3 rows ahead.
# Call 76: backward kernels with ITEMS 3 for 16-bit rows (and 3 / 6 for fp32) against the auto
# plan: rows of 2049 in 96-thread blocks (5 an SM) instead of 160-thread blocks (3 an SM).
# "ahead" runs rmsnorm_bwd ITEMS 3 with its row loaded ahead (kernels from exp/kernels_ahead).
set -u
B=$PWD/.device/ladder
export LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p /tmp/o
for rep in 1 2; do
  for op in rmsnorm_bwd layernorm_bwd; do
    for dt in bf16 f16; do
      $B bench $op --dtype $dt --shape 16384x2049 --shape 8192x2049 --shape 16384x2056 --shape 16384x2176 --shape 4096x5120 --shape 4096x5125 2>&1 | grep " ladder" | sed "s/^/auto /"
      $B bench $op --dtype $dt --shape 16384x2049 --shape 8192x2049 --shape 16384x2056 --shape 16384x2176 --shape 4096x5120 --shape 4096x5125 --variant items=3 2>&1 | grep " ladder" | sed "s/^/items3 /"
    done
    for it in 3 6; do
      $B bench $op --dtype f32 --shape 16384x2049 --shape 8192x2049 --shape 4096x5125 --variant items=$it 2>&1 | grep " ladder" | sed "s/^/items$it /"
    done
    $B bench $op --dtype f32 --shape 16384x2049 --shape 8192x2049 --shape 4096x5125 2>&1 | grep " ladder" | sed "s/^/auto /"
  done
  LADDER_KERNELS_DIR=$PWD/exp/kernels_ahead $B bench rmsnorm_bwd --dtype bf16 --shape 16384x2049 --shape 8192x2049 --shape 16384x2056 --variant items=3 2>&1 | grep " ladder" | sed "s/^/ahead3 /"
done > /tmp/o/sweep-bwd-items3.txt 2>&1
$B bench rmsnorm_bwd layernorm_bwd --dtype bf16 --shape 16384x2049 --variant items=3 --json /tmp/o/geo.json > /dev/null 2>&1
python3 -c "
import json
for r in json.load(open('/tmp/o/geo.json'))['results']:
  if r.get('type')=='result': print(r['op'], r['d'], r['geometry'])
"
$B verify rmsnorm_bwd layernorm_bwd --no-fixtures --jobs 12 > /tmp/o/verify-items3.txt 2>&1; echo "verify exit $?"
grep -E "FAIL|UNRESOLVED|rungs:" /tmp/o/verify-items3.txt | head
awk '{print $1,$2,$3,$4,$5,$8,$NF}' /tmp/o/sweep-bwd-items3.txt | sort -k2,2 -k3,3 -k5,5n -k4,4n -k1,1
cp /tmp/o/*.txt $OUT/ 2>/dev/null
true
