#!/bin/bash
# Call 188: the phase kernels asking the L2 for rows ahead (phase_prefetch=N, the kernels'
# PREFETCH). Cold, bf16 (and LayerNorm fp32), two repeats: the backward at schedule=regs, at
# schedule=phase without and with 1-3 rows prefetched; the forward phase kernels without and
# with 1-2. Then the 36 prefetch rungs of ladder verify, and compute-sanitizer memcheck (bare
# allocations) and racecheck over their bf16 rungs. Files go to $OUT.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
B=$PWD/.device/ladder
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc
nvidia-smi -L
left() { local l=$(( $1 - SECONDS )); [ $l -lt 5 ] && l=5; echo $l; }
b() { local tag=$1; shift; timeout $(left 330) $B bench "$@" 2>&1 | grep -E " ladder |copy ceiling|rror" | sed "s/^/$tag /"; }
{ echo "# Call 188 ($LADDER_COMMIT, a188.sh): rows ahead asked of the L2 by the phase kernels. Tags: regs (schedule=regs), pN (schedule=phase phase_prefetch=N; p0 none). Cold. Columns: tag op dtype rows d impl hot cold hotGBps coldGBps frac same clean_us clean_frac."
  for rep in 1 2; do
    for t in regs p0 p1 p2 p3; do
      V="--variant schedule=phase --variant phase_prefetch=${t#p}"; [ $t = regs ] && V="--variant schedule=regs"
      b $t rmsnorm_bwd --dtype bf16 --shape 8192x2049 --shape 8192x3073 --shape 16384x1025 $V
      b $t layernorm_bwd --dtype bf16 --shape 8192x2049 --shape 8192x3073 --shape 16384x1025 $V
      b $t add_rmsnorm_bwd --dtype bf16 --shape 8192x2049 --shape 8192x1537 --shape 8192x3073 $V
    done
    for t in p0 p1 p2; do
      V="--variant schedule=phase --variant phase_prefetch=${t#p}"
      b $t rmsnorm add_rmsnorm layernorm --dtype bf16 --shape 16384x2049 --shape 8192x2049 $V
      b $t layernorm --dtype f32 --shape 16384x2049 $V
    done
  done; } > $OUT/bench-prefetch-188.txt
grep -v "copy ceiling" $OUT/bench-prefetch-188.txt | awk 'NR>1{print $1,$2,$3,$4,$5,$8,$11}' | sort -k2,2 -k4,4n -k5,5n -k1,1 -s
echo "sweep done at $SECONDS s"
$B verify --write-ladder /tmp/v.json > /dev/null
timeout $(left 420) $B run --ladder /tmp/v.json '*prefetch*' --jobs 12 --json $OUT/verify-prefetch-188.json > $OUT/verify-prefetch-188.txt 2>&1; echo "verify exit $?"
grep -E "FAIL|UNRESOLVED|XPASS|rungs:" $OUT/verify-prefetch-188.txt | head -20
for tool in memcheck racecheck; do
  extra=""; [ $tool = memcheck ] && extra="--bare-allocations"
  timeout $(left 560) compute-sanitizer --tool $tool --target-processes all --print-limit 5 $B run --ladder /tmp/v.json '*bf16*prefetch*' --jobs 6 $extra > /tmp/san.txt 2>&1
  { echo "exit $?"; grep -E "RACECHECK SUMMARY|ERROR SUMMARY|rungs:|Hazard|Invalid|out of bounds|Program hit" /tmp/san.txt | sort | uniq -c; } > $OUT/$tool-prefetch-188.txt
  echo "== $tool"; cat $OUT/$tool-prefetch-188.txt
done
echo "total $SECONDS s"
true
