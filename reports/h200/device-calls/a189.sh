#!/bin/bash
# Call 189: the phase kernels' PREFETCH as kept (a bool: the next row asked of the L2; auto takes
# it for the backward phase kernels and fp32 LayerNorm's forward). First auto's edges: the
# backward at schedule=phase (now with PREFETCH) against schedule=regs at and past the table's
# widths, and fp32 LayerNorm forward with and without PREFETCH across auto's phase widths; cold,
# bf16, two repeats. Then the evidence on this commit: ladder verify of every op (fixtures
# included), the selftest ladder, compute-sanitizer over the bf16 phase rungs (--quick shapes),
# bench.json. Files
# go to $OUT.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
B=$PWD/.device/ladder
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc
nvidia-smi -L
left() { local l=$(( $1 - SECONDS )); [ $l -lt 5 ] && l=5; echo $l; }
b() { local tag=$1; shift; timeout $(left 120) $B bench "$@" 2>&1 | grep -E " ladder |copy ceiling|rror" | sed "s/^/$tag /"; }
{ echo "# Call 189 ($LADDER_COMMIT, a189.sh): tags regs (schedule=regs), phase (schedule=phase, auto's PREFETCH: the next row asked of the L2), p0/p1 (fp32 LayerNorm forward, schedule=phase, phase_prefetch=0|1). Cold. Columns: tag op dtype rows d impl hot cold hotGBps coldGBps frac same clean_us clean_frac."
  for rep in 1 2; do
    for t in regs phase; do
      b $t rmsnorm_bwd --dtype bf16 --shape 8192x2561 --shape 8192x3329 --shape 8192x3577 --shape 4096x5125 --variant schedule=$t
      b $t layernorm_bwd --dtype bf16 --shape 16384x1281 --shape 8192x1537 --shape 8192x2561 --shape 8192x3329 --shape 8192x3577 --variant schedule=$t
      b $t add_rmsnorm_bwd --dtype bf16 --shape 16384x769 --shape 8192x3329 --shape 8192x3577 --shape 4096x5125 --variant schedule=$t
    done
    for t in p0 p1; do
      b $t layernorm --dtype f32 --shape 16384x1025 --shape 8192x3073 --shape 8192x5125 --variant schedule=phase --variant phase_prefetch=${t#p}
    done
  done; } > $OUT/bench-prefetch-edges-189.txt
grep -v "copy ceiling" $OUT/bench-prefetch-edges-189.txt | awk 'NR>1{print $1,$2,$3,$4,$5,$8,$11}' | sort -k2,2 -k4,4n -k5,5n -k1,1 -s
echo "sweep done at $SECONDS s"
timeout $(left 390) $B verify --jobs 14 --json $OUT/verify.json > $OUT/verify.txt 2>&1; echo "verify exit $?"
grep -E "FAIL|UNRESOLVED|XPASS|rungs:" $OUT/verify.txt | head -20
$B verify --worst-from $OUT/verify.json > $OUT/verify-worst.txt 2>&1
timeout $(left 420) $B run --ladder probes/selftest.json --jobs 8 > $OUT/selftest-189.txt 2>&1; echo "selftest exit $?"
grep -E "rungs:" $OUT/selftest-189.txt
$B verify --dtype bf16 --no-fixtures --quick --write-ladder /tmp/vb.json > /dev/null
for tool in memcheck racecheck; do
  extra=""; [ $tool = memcheck ] && extra="--bare-allocations"
  timeout $(left 490) compute-sanitizer --tool $tool --target-processes all --print-limit 5 $B run --ladder /tmp/vb.json '*phase*' --jobs 8 $extra > /tmp/san.txt 2>&1
  { echo "exit $?"; grep -E "RACECHECK SUMMARY|ERROR SUMMARY|rungs:|Hazard|Invalid|out of bounds|Program hit" /tmp/san.txt | sort | uniq -c; } > $OUT/$tool-phase-189.txt
  echo "== $tool"; cat $OUT/$tool-phase-189.txt
done
timeout $(left 590) $B bench --json $OUT/bench.json > /tmp/bench.txt 2>&1; echo "bench exit $?"
echo "total $SECONDS s"
true
