#!/bin/bash
# Call 203: the evidence for schedule=flat as landed (auto takes its TMA build at rmsnorm 16-bit
# d = 1025-1281 and rmsnorm_bwd d mod 8 of 2 or 4 at 1026-2052): the selftest ladder (two new
# broken flat launches among its rungs), every flat verify rung, and auto's plans timed at the
# widths it now hands to flat against schedule=regs. Cold. Files go to $OUT.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
B=$PWD/.device/ladder
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc
nvidia-smi -L
left() { local l=$(( $1 - SECONDS )); [ $l -lt 5 ] && l=5; echo $l; }
timeout $(left 120) $B run --ladder probes/selftest.json --jobs 8 --json $OUT/selftest-203.json > $OUT/selftest-203.txt 2>&1; echo "selftest exit $?"
grep -E "flat|rungs:" $OUT/selftest-203.txt
$B verify rmsnorm rmsnorm_bwd --no-fixtures --write-ladder /tmp/v.json > /dev/null
timeout $(left 260) $B run --ladder /tmp/v.json '*flat*' --jobs 12 --json $OUT/verify-flat-203.json > $OUT/verify-flat-203.txt 2>&1; echo "verify exit $?"
grep -E "FAIL|UNRESOLVED|XPASS|rungs:" $OUT/verify-flat-203.txt | head -20
b() { local tag=$1; shift; timeout $(left 400) $B bench "$@" 2>&1 | grep -E " ladder |copy ceiling|rror" | sed "s/^/$tag /"; }
{ echo "# Call 203 ($LADDER_COMMIT, a203.sh): tags auto (now schedule=flat at these widths), regs (schedule=regs). bf16, cold. Columns: tag op dtype rows d impl hot cold hotGBps coldGBps frac same clean_us clean_frac."
  for rep in 1 2; do
    b auto rmsnorm --dtype bf16 --shape 16384x1025 --shape 16384x1281 --shape 4096x1028
    b auto rmsnorm_bwd --dtype bf16 --shape 16384x1026 --shape 16384x2050 --shape 8192x2052
    b regs rmsnorm --dtype bf16 --shape 16384x1025 --shape 16384x1281 --shape 4096x1028 --variant schedule=regs
    b regs rmsnorm_bwd --dtype bf16 --shape 16384x1026 --shape 16384x2050 --shape 8192x2052 --variant schedule=regs
  done; } > $OUT/bench-flat-auto-203.txt
grep -v "copy ceiling" $OUT/bench-flat-auto-203.txt | awk 'NR>1{print $1,$2,$3,$4,$5,$8,$11}' | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1 -s
echo "total $SECONDS s"
true
