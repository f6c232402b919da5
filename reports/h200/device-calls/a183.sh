#!/bin/bash
# Call 183: the phase kernels loading each row one row ahead (LayerNorm's 16-bit two-chunk
# builds excepted, byte-identical to f91674a's), this commit ('new') against f91674a's kernels
# ('base', exp182/base) at the widths call 182 did not time, cold, two repeats; then the evidence
# on this commit: ladder verify of every op, the worst-error tables, bench.json; compute-sanitizer
# over the bf16 phase rungs; last, if time is left, both ladders' isolation overhead by --jobs.
# Files go to $OUT.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
B=$PWD/.device/ladder
K=$PWD/kernels
nvidia-smi -L
left() { local l=$(( $1 - SECONDS )); [ $l -lt 5 ] && l=5; echo $l; }
dir() { case $1 in new) echo $K;; *) echo $PWD/exp182/$1;; esac; }
b() { local tag=$1; shift; LADDER_KERNELS_DIR=$(dir $tag) LADDER_CACHE_DIR=/tmp/lc-$tag timeout $(left 150) $B bench "$@" 2>&1 | grep -E " ladder |copy ceiling|rror" | sed "s/^/$tag /"; }
{ echo "# Call 183 ($LADDER_COMMIT, a183.sh): phase kernels with rows loaded ahead (new) against f91674a (base); auto's plans, cold, two repeats. Columns: tag op dtype rows d impl hot cold hotGBps coldGBps frac same clean_us clean_frac."
  for rep in 1 2; do for t in base new; do
    b $t add_rmsnorm rmsnorm --dtype bf16 --shape 8192x8193 --shape 16384x5125 --shape 16384x1537
    b $t layernorm --dtype bf16 --shape 8192x5125
    b $t layernorm --dtype f32 --shape 16384x1025 --shape 8192x5125
    b $t add_rmsnorm --dtype f16 --shape 16384x2049
  done; done; } > $OUT/bench-phase-183.txt
grep -v "copy ceiling" $OUT/bench-phase-183.txt | awk 'NR>1{print $1,$2,$3,$4,$5,$8,$11}' | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1 -s
export LADDER_KERNELS_DIR=$K LADDER_CACHE_DIR=/tmp/lc-new
timeout $(left 470) $B verify --jobs 14 --json $OUT/verify.json > $OUT/verify.txt 2>&1; echo "verify exit $?"
grep -E "FAIL|UNRESOLVED|XPASS|rungs:" $OUT/verify.txt | head -20
$B verify --worst-from $OUT/verify.json > $OUT/verify-worst.txt 2>&1
timeout $(left 530) $B bench --json $OUT/bench.json > /tmp/bench.txt 2>&1; echo "bench exit $?"
$B verify rmsnorm add_rmsnorm layernorm --dtype bf16 --no-fixtures --write-ladder /tmp/vp.json > /dev/null
for tool in memcheck racecheck; do
  extra=""; [ $tool = memcheck ] && extra="--bare-allocations"
  timeout $(left 575) compute-sanitizer --tool $tool --target-processes all --print-limit 5 $B run --ladder /tmp/vp.json '*phase*' --jobs 8 $extra > /tmp/san.txt 2>&1
  { echo "exit $?"; grep -E "RACECHECK SUMMARY|ERROR SUMMARY|rungs:|Hazard|Invalid|out of bounds|Program hit" /tmp/san.txt | sort | uniq -c; } > $OUT/$tool-phase-183.txt
  echo "== $tool"; cat $OUT/$tool-phase-183.txt
done
echo "total $SECONDS s"
true
