#!/bin/bash
# Call 239: the evidence for main after calls 235-238: single reads under the L2 keep policy
# (LayerNorm's register kernel, the bulk copies, the fp32 backward register kernels' rows, the
# held rows), auto's held 16-bit RMSNorm rows of 128 chunks, the loop_hold variants and the new
# small shape 5x1032 in the verify grid. ladder bench, then every verify rung of every op,
# fixtures included (the peers are call 232's: no peer changed, and this session's device time
# is short). Carried: .device/ladder (main's build, stripped). Files go to $OUT.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT /tmp/t
B=$PWD/.device/ladder
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc
left() { local l=$(( $1 - SECONDS )); [ $l -lt 5 ] && l=5; echo $l; }
{ echo "# Call 239 ($LADDER_COMMIT, a239.sh)"; nvidia-smi --query-gpu=name,driver_version --format=csv
  echo "== bench"; (time timeout 170 $B bench --json $OUT/bench.json) 2>&1 | grep -E "copy ceiling|real"
  echo "== against call 232's bench.json"; $B compare reports/h200/bench.json $OUT/bench.json | tail -60
} > $OUT/log-239.txt 2>&1
cat $OUT/log-239.txt
echo "bench done $SECONDS s"
timeout $(left 530) $B verify --jobs 14 --json $OUT/verify.json > $OUT/verify.txt 2>&1; echo "verify exit $?"
grep -E "FAIL|UNRESOLVED|XPASS|rungs:" $OUT/verify.txt | grep -v " PASS " | head -20
tail -3 $OUT/verify.txt
gzip -k $OUT/verify.json 2>/dev/null && rm -f $OUT/verify.json
echo "total $SECONDS s"
true
