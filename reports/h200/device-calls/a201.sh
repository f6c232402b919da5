#!/bin/bash
# Call 201: schedule=flat with its segments copied whole into shared-memory stages by the TMA
# (kernels/flat_bulk.cuh, flat_bulk=auto on sm_90). Its verify rungs (every dtype, the register
# build too) and compute-sanitizer over the bf16 ones; then flat against auto at d = 2049 and other
# widths off the grid, with 2-4 stages. Cold, two repeats. Files go to $OUT.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
B=$PWD/.device/ladder
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc
nvidia-smi -L
left() { local l=$(( $1 - SECONDS )); [ $l -lt 5 ] && l=5; echo $l; }
$B verify rmsnorm rmsnorm_bwd --no-fixtures --write-ladder /tmp/v.json > /dev/null
timeout $(left 130) $B run --ladder /tmp/v.json '*flat*' --jobs 12 --json $OUT/verify-flat-201.json > $OUT/verify-flat-201.txt 2>&1; echo "verify exit $?"
grep -E "FAIL|UNRESOLVED|XPASS|rungs:" $OUT/verify-flat-201.txt | head -30
for tool in memcheck racecheck; do
  extra=""; [ $tool = memcheck ] && extra="--bare-allocations"
  timeout $(left 260) compute-sanitizer --tool $tool --target-processes all --print-limit 5 $B run --ladder /tmp/v.json '*bf16*flat*' --jobs 8 $extra > /tmp/san.txt 2>&1
  { echo "exit $?"; grep -E "RACECHECK SUMMARY|ERROR SUMMARY|rungs:|Hazard|Invalid|out of bounds|Program hit" /tmp/san.txt | sort | uniq -c; } > $OUT/$tool-flat-201.txt
  echo "== $tool"; cat $OUT/$tool-flat-201.txt
done
echo "checks done at $SECONDS s"
b() { local tag=$1; shift; timeout $(left 570) $B bench "$@" 2>&1 | grep -E " ladder |copy ceiling|rror" | sed "s/^/$tag /"; }
F="--variant schedule=flat"
S2049="--shape 16384x2049 --shape 8192x2049"
SO="--shape 16384x1025 --shape 8192x3073 --shape 16384x2050 --shape 4096x4097"
{ echo "# Call 201 ($LADDER_COMMIT, a201.sh): tags auto; flat (schedule=flat, the TMA's stages: forward 3, backward 2); stN (flat_stages=N); regs (flat_bulk=0). Cold. Columns: tag op dtype rows d impl hot cold hotGBps coldGBps frac same clean_us clean_frac."
  for rep in 1 2; do
    b auto rmsnorm rmsnorm_bwd --dtype bf16 $S2049 --shape 16384x2048
    b flat rmsnorm rmsnorm_bwd --dtype bf16 $S2049 $F
    b st2 rmsnorm --dtype bf16 $S2049 $F --variant flat_stages=2
    b st4 rmsnorm --dtype bf16 $S2049 $F --variant flat_stages=4
    b regs rmsnorm_bwd rmsnorm --dtype bf16 --shape 16384x2049 $F --variant flat_bulk=0
    b auto rmsnorm rmsnorm_bwd --dtype bf16 $SO
    b flat rmsnorm rmsnorm_bwd --dtype bf16 $SO $F
    for dt in f16 f32; do
      b auto rmsnorm rmsnorm_bwd --dtype $dt --shape 16384x2049
      b flat rmsnorm rmsnorm_bwd --dtype $dt --shape 16384x2049 $F
    done
  done; } > $OUT/bench-flat-201.txt
grep -v "copy ceiling" $OUT/bench-flat-201.txt | awk 'NR>1{print $1,$2,$3,$4,$5,$8,$11}' | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1 -s
echo "total $SECONDS s"
true
