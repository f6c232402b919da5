#!/bin/bash
# Call 191: auto's new backward phase table (a span for each step of the register kernel's
# geometry where call 188-190 timed the phase kernels faster). ladder verify of add_rmsnorm_bwd
# (its 4096x769 rungs now take the phase kernel), then auto against schedule=regs at one width
# inside each new span, cold, bf16, two repeats. Files go to $OUT.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
B=$PWD/.device/ladder
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc
nvidia-smi -L
left() { local l=$(( $1 - SECONDS )); [ $l -lt 5 ] && l=5; echo $l; }
timeout $(left 200) $B verify add_rmsnorm_bwd --jobs 14 --json $OUT/verify-add-bwd-191.json > $OUT/verify-add-bwd-191.txt 2>&1; echo "verify exit $?"
grep -E "FAIL|UNRESOLVED|XPASS|rungs:" $OUT/verify-add-bwd-191.txt | head
$B verify --worst-from $OUT/verify-add-bwd-191.json > $OUT/verify-add-bwd-worst-191.txt 2>&1
b() { local tag=$1; shift; timeout $(left 320) $B bench "$@" 2>&1 | grep -E " ladder |copy ceiling|rror" | sed "s/^/$tag /"; }
{ echo "# Call 191 ($LADDER_COMMIT, a191.sh): auto (the new table) against schedule=regs. Cold. Columns: tag op dtype rows d impl hot cold hotGBps coldGBps frac same clean_us clean_frac."
  for rep in 1 2; do for t in regs auto; do
    V=""; [ $t = regs ] && V="--variant schedule=regs"
    b $t rmsnorm_bwd --dtype bf16 --shape 8192x1601 --shape 8192x2753 --shape 8192x3801 $V
    b $t layernorm_bwd --dtype bf16 --shape 8192x1601 --shape 8192x2753 --shape 8192x3801 $V
    b $t add_rmsnorm_bwd --dtype bf16 --shape 16384x833 --shape 8192x1409 --shape 8192x3457 $V
  done; done; } > $OUT/bench-bwd-auto-191.txt
grep -v "copy ceiling" $OUT/bench-bwd-auto-191.txt | awk 'NR>1{print $1,$2,$3,$4,$5,$8,$11}' | sort -k2,2 -k4,4n -k5,5n -k1,1 -s
echo "total $SECONDS s"
true
