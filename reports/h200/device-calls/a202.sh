#!/bin/bash
# Call 202: where schedule=flat (through the TMA) beats auto: rmsnorm and rmsnorm_bwd, 16-bit rows
# off the grid of 769-4100 elements (cold, two repeats); and the flat rungs at 4096 rows of those
# widths (every dtype), so that a width auto then hands to flat has run on the H200. Files go to $OUT.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
B=$PWD/.device/ladder
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc
nvidia-smi -L
left() { local l=$(( $1 - SECONDS )); [ $l -lt 5 ] && l=5; echo $l; }
W="769 897 1025 1026 1028 1153 1281 1537 1794 2050 2052 2306 3074 4100"
$B verify rmsnorm rmsnorm_bwd --no-fixtures --write-ladder /tmp/v.json > /dev/null
python3 - "$W" <<'PY'
import json, sys
d = json.load(open('/tmp/v.json'))
keep = []
for r in d['rungs']:
    if r['kernel'].get('variant') in ({'schedule': 'flat'}, {'schedule': 'flat', 'weight': 'gemma', 'flat_blocks_per_sm': '1'}):
        r['cases'] = [{'rows': 4096, 'd': int(w)} for w in sys.argv[1].split()] + [{'rows': 4099, 'd': int(w)} for w in sys.argv[1].split()[:4]]
        r['name'] += '_widths'
        keep.append(r)
d['rungs'] = keep
json.dump(d, open('/tmp/vw.json', 'w'))
print(len(keep), 'rungs')
PY
timeout $(left 150) $B run --ladder /tmp/vw.json --jobs 12 --json $OUT/verify-flat-widths-202.json > $OUT/verify-flat-widths-202.txt 2>&1; echo "verify exit $?"
grep -E "FAIL|UNRESOLVED|XPASS|rungs:" $OUT/verify-flat-widths-202.txt | head -20
b() { local tag=$1; shift; timeout $(left 450) $B bench "$@" 2>&1 | grep -E " ladder |copy ceiling|rror" | sed "s/^/$tag /"; }
SH=""; for w in $W; do SH="$SH --shape 16384x$w"; done
{ echo "# Call 202 ($LADDER_COMMIT, a202.sh): tags auto, flat (schedule=flat, through the TMA). bf16, cold. Columns: tag op dtype rows d impl hot cold hotGBps coldGBps frac same clean_us clean_frac."
  for rep in 1 2; do
    b auto rmsnorm rmsnorm_bwd --dtype bf16 $SH
    b flat rmsnorm rmsnorm_bwd --dtype bf16 $SH --variant schedule=flat
  done
  b auto rmsnorm rmsnorm_bwd --dtype f16 --shape 16384x1025 --shape 16384x2050 --shape 8192x1025
  b flat rmsnorm rmsnorm_bwd --dtype f16 --shape 16384x1025 --shape 16384x2050 --shape 8192x1025 --variant schedule=flat
  b auto rmsnorm rmsnorm_bwd --dtype bf16 --shape 4096x1025 --shape 8192x1025 --shape 8192x2050
  b flat rmsnorm rmsnorm_bwd --dtype bf16 --shape 4096x1025 --shape 8192x1025 --shape 8192x2050 --variant schedule=flat
  } > $OUT/bench-flat-widths-202.txt
grep -v "copy ceiling" $OUT/bench-flat-widths-202.txt | awk 'NR>1{print $1,$2,$3,$4,$5,$8,$11}' | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1 -s
echo "total $SECONDS s"
true
