#!/bin/bash
# Call 171: schedule=phase by ITEMS and row width against auto's plans (16-bit and fp32 rows off
# the 16-byte grid), cold, two repeats, for the auto rule; then the phase rungs of verify again
# after the fixes (beta's slots without gamma; shared memory past a block's maximum).
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
B=$PWD/.device/ladder
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc
nvidia-smi -L
b() { local tag=$1; shift; timeout 200 $B bench "$@" 2>&1 | grep -E " ladder |copy ceiling|rror" | sed "s/^/$tag /"; }
{ echo "# Call 171 ($LADDER_COMMIT, a171.sh): 'auto' = auto's plan; 'ph' = schedule=phase (the register geometry's ITEMS); 'phN' = schedule=phase items=N; cold, two repeats. Columns: tag op dtype rows d impl hot cold hotGBps coldGBps frac same clean_us clean_frac."
  S="--shape 16384x769 --shape 16384x1025 --shape 16384x1537 --shape 16384x2049 --shape 16384x3073 --shape 8192x5125 --shape 8192x8193"
  for rep in 1 2; do
    b auto rmsnorm add_rmsnorm layernorm --dtype bf16 $S
    b ph rmsnorm add_rmsnorm layernorm --dtype bf16 $S --variant schedule=phase
    for it in 1 2 3 4; do b ph$it rmsnorm add_rmsnorm layernorm --dtype bf16 $S --variant schedule=phase --variant items=$it; done
    b auto layernorm --dtype f32 --shape 16384x1025 --shape 16384x2049 --shape 8192x5125
    b ph layernorm --dtype f32 --shape 16384x1025 --shape 16384x2049 --shape 8192x5125 --variant schedule=phase
  done; } > $OUT/bench-phase-items-171.txt
grep -v "copy ceiling" $OUT/bench-phase-items-171.txt | awk 'NR>1{print $2,$3,$4,$5,$1,$8}' | sort -k1,1 -k2,2 -k3,3n -k4,4n -k5,5 -s | awk '{k=$1" "$2" "$3" "$4; if (k!=prev) {printf "\n%s:", k; prev=k} printf " %s=%s", $5, $6}'; echo
{ echo "== ladder verify --write-ladder (rmsnorm add_rmsnorm layernorm), then ladder run '*phase*'"
  $B verify rmsnorm add_rmsnorm layernorm --no-fixtures --write-ladder /tmp/v.json > /dev/null
  timeout $((570-SECONDS)) $B run --ladder /tmp/v.json '*phase*' --jobs 12 --json $OUT/verify-phase-171.json > /tmp/vp.txt 2>&1
  echo "exit $? at $SECONDS s"; grep -E " FAIL | UNRESOLVED | XPASS " /tmp/vp.txt | head -20; tail -2 /tmp/vp.txt; } | tee $OUT/verify-phase-171.txt
echo "total $SECONDS s"
true
