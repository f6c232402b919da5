#!/bin/bash
# Call 186: the backward phase kernels as kept (a 1024-thread launch bound only: call 185's LEAN
# builds) and auto's table for them. First auto against schedule=regs at the widths the table
# takes (those call 185 timed, and untimed ones inside its ranges) and one each side, cold, two
# repeats; then the evidence on this commit: ladder verify of every op (fixtures included), the
# selftest ladder, compute-sanitizer over the bf16 backward phase rungs, bench.json. Files go to
# $OUT.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
B=$PWD/.device/ladder
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc
nvidia-smi -L
left() { local l=$(( $1 - SECONDS )); [ $l -lt 5 ] && l=5; echo $l; }
b() { local tag=$1; shift; timeout $(left 150) $B bench "$@" 2>&1 | grep -E " ladder |copy ceiling|rror" | sed "s/^/$tag /"; }
{ echo "# Call 186 ($LADDER_COMMIT, a186.sh): the backward off the 16-byte grid, schedule=regs (regs) against auto (auto: the phase kernels inside its table's ranges); cold, bf16. Columns: tag op dtype rows d impl hot cold hotGBps coldGBps frac same clean_us clean_frac."
  for rep in 1 2; do for t in regs auto; do
    V=""; [ $t = regs ] && V="--variant schedule=regs"
    b $t add_rmsnorm_bwd --dtype bf16 --shape 8192x1537 --shape 8192x2049 --shape 8192x2561 --shape 8192x3577 --shape 8192x4097 $V
    b $t layernorm_bwd --dtype bf16 --shape 16384x1025 --shape 16384x1153 --shape 8192x3073 --shape 8192x3577 --shape 8192x4097 $V
    b $t rmsnorm_bwd --dtype bf16 --shape 8192x3073 --shape 8192x3577 --shape 8192x4097 $V
  done; done; } > $OUT/bench-bwd-auto-186.txt
grep -v "copy ceiling" $OUT/bench-bwd-auto-186.txt | awk 'NR>1{print $1,$2,$3,$4,$5,$8,$11}' | sort -k2,2 -k4,4n -k5,5n -k1,1 -s
echo "sweep done at $SECONDS s"
timeout $(left 400) $B verify --jobs 14 --json $OUT/verify.json > $OUT/verify.txt 2>&1; echo "verify exit $?"
grep -E "FAIL|UNRESOLVED|XPASS|rungs:" $OUT/verify.txt | head -20
$B verify --worst-from $OUT/verify.json > $OUT/verify-worst.txt 2>&1
timeout $(left 430) $B run --ladder probes/selftest.json --jobs 8 > $OUT/selftest-186.txt 2>&1; echo "selftest exit $?"
grep -E "st_bwd|rungs:" $OUT/selftest-186.txt
$B verify rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd --dtype bf16 --no-fixtures --write-ladder /tmp/vb.json > /dev/null
for tool in memcheck racecheck; do
  extra=""; [ $tool = memcheck ] && extra="--bare-allocations"
  timeout $(left 490) compute-sanitizer --tool $tool --target-processes all --print-limit 5 $B run --ladder /tmp/vb.json '*phase*' --jobs 8 $extra > /tmp/san.txt 2>&1
  { echo "exit $?"; grep -E "RACECHECK SUMMARY|ERROR SUMMARY|rungs:|Hazard|Invalid|out of bounds|Program hit" /tmp/san.txt | sort | uniq -c; } > $OUT/$tool-bwd-phase-186.txt
  echo "== $tool"; cat $OUT/$tool-bwd-phase-186.txt
done
timeout $(left 585) $B bench --json $OUT/bench.json > /tmp/bench.txt 2>&1; echo "bench exit $?"
echo "total $SECONDS s"
true
