#!/bin/bash
# Call 184: the backward's schedule=phase (kernels/backward_phase.cuh), new this commit. First the
# A/B in one binary: schedule=regs (the shifted register kernels auto took before) against auto
# (now the phase kernels) at rows off the 16-byte grid, cold, two repeats; then the phase
# kernels' ITEMS and blocks an SM at two shapes. Then the evidence: ladder verify of the three
# backward ops (every dtype and variant, fixtures included), the selftest ladder (its two new
# phase launch guards), compute-sanitizer over the bf16 backward phase rungs, and bench.json if
# time is left. Files go to $OUT.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
B=$PWD/.device/ladder
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc
nvidia-smi -L
left() { local l=$(( $1 - SECONDS )); [ $l -lt 5 ] && l=5; echo $l; }
b() { local tag=$1; shift; timeout $(left 230) $B bench "$@" 2>&1 | grep -E " ladder |copy ceiling|rror" | sed "s/^/$tag /"; }
S="--shape 8192x2049 --shape 16384x2049 --shape 16384x1025 --shape 16384x769 --shape 8192x3073 --shape 4096x5125"
{ echo "# Call 184 ($LADDER_COMMIT, a184.sh): the backward at rows off the 16-byte grid, schedule=regs (regs) against auto's phase kernels (phase), then phase_items (pI) and phase_blocks_per_sm (bN); cold. Columns: tag op dtype rows d impl hot cold hotGBps coldGBps frac same clean_us clean_frac."
  for rep in 1 2; do
    b regs rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd --dtype bf16 $S --variant schedule=regs
    b phase rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd --dtype bf16 $S
  done
  for rep in 1 2; do
    b regs rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd --dtype f16 --shape 8192x2049 --variant schedule=regs
    b phase rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd --dtype f16 --shape 8192x2049
    b regs-rc layernorm_bwd --dtype bf16 --shape 8192x2049 --variant schedule=regs --variant stats=recompute
    b phase-rc layernorm_bwd --dtype bf16 --shape 8192x2049 --variant stats=recompute
  done
  for rep in 1 2; do
    for i in 1 2; do b p$i rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd --dtype bf16 --shape 8192x2049 --shape 16384x1025 --variant schedule=phase --variant phase_items=$i; done
    b p3 rmsnorm_bwd --dtype bf16 --shape 8192x2049 --shape 16384x1025 --variant schedule=phase --variant phase_items=3
    for n in 2 3 4; do b b$n rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd --dtype bf16 --shape 8192x2049 --shape 16384x1025 --variant schedule=phase --variant phase_blocks_per_sm=$n; done
  done; } > $OUT/bench-bwd-phase-184.txt
grep -v "copy ceiling" $OUT/bench-bwd-phase-184.txt | awk 'NR>1{print $1,$2,$3,$4,$5,$8,$11}' | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1 -s
echo "sweep done at $SECONDS s"
timeout $(left 400) $B verify rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd --jobs 14 --json $OUT/verify-bwd-184.json > $OUT/verify-bwd-184.txt 2>&1; echo "verify exit $?"
grep -E "FAIL|UNRESOLVED|XPASS|rungs:" $OUT/verify-bwd-184.txt | head -20
$B verify --worst-from $OUT/verify-bwd-184.json > $OUT/verify-bwd-worst-184.txt 2>&1
timeout $(left 430) $B run --ladder probes/selftest.json --jobs 8 > $OUT/selftest-184.txt 2>&1; echo "selftest exit $?"
grep -E "st_bwd_phase|rungs:" $OUT/selftest-184.txt
$B verify rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd --dtype bf16 --no-fixtures --write-ladder /tmp/vb.json > /dev/null
for tool in memcheck racecheck; do
  extra=""; [ $tool = memcheck ] && extra="--bare-allocations"
  timeout $(left 500) compute-sanitizer --tool $tool --target-processes all --print-limit 5 $B run --ladder /tmp/vb.json '*phase*' --jobs 8 $extra > /tmp/san.txt 2>&1
  { echo "exit $?"; grep -E "RACECHECK SUMMARY|ERROR SUMMARY|rungs:|Hazard|Invalid|out of bounds|Program hit" /tmp/san.txt | sort | uniq -c; } > $OUT/$tool-bwd-phase-184.txt
  echo "== $tool"; cat $OUT/$tool-bwd-phase-184.txt
done
timeout $(left 585) $B bench --json $OUT/bench.json > /tmp/bench.txt 2>&1; echo "bench exit $?"
echo "total $SECONDS s"
true
