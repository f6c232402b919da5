#!/bin/bash
# Call 198: schedule=flat (kernels/flat_rows.cuh: packed rows off the 16-byte grid read as one
# flat array of segments of S rows), rmsnorm and rmsnorm_bwd. First its verify rungs (every dtype)
# and compute-sanitizer memcheck/racecheck over the bf16 ones; then flat against auto at d = 2049
# (and 2048 for reference), with one to four blocks an SM. Cold, two repeats. Files go to $OUT.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
B=$PWD/.device/ladder
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc
nvidia-smi -L
left() { local l=$(( $1 - SECONDS )); [ $l -lt 5 ] && l=5; echo $l; }
$B verify rmsnorm rmsnorm_bwd --no-fixtures --write-ladder /tmp/v.json > /dev/null
timeout $(left 120) $B run --ladder /tmp/v.json '*flat*' --jobs 12 --json $OUT/verify-flat-198.json > $OUT/verify-flat-198.txt 2>&1; echo "verify exit $?"
grep -E "FAIL|UNRESOLVED|XPASS|rungs:" $OUT/verify-flat-198.txt | head -30
for tool in memcheck racecheck; do
  extra=""; [ $tool = memcheck ] && extra="--bare-allocations"
  timeout $(left 240) compute-sanitizer --tool $tool --target-processes all --print-limit 5 $B run --ladder /tmp/v.json '*bf16*flat*' --jobs 8 $extra > /tmp/san.txt 2>&1
  { echo "exit $?"; grep -E "RACECHECK SUMMARY|ERROR SUMMARY|rungs:|Hazard|Invalid|out of bounds|Program hit" /tmp/san.txt | sort | uniq -c; } > $OUT/$tool-flat-198.txt
  echo "== $tool"; cat $OUT/$tool-flat-198.txt
done
echo "checks done at $SECONDS s"
b() { local tag=$1; shift; timeout $(left 560) $B bench "$@" 2>&1 | grep -E " ladder |copy ceiling|rror" | sed "s/^/$tag /"; }
{ echo "# Call 198 ($LADDER_COMMIT, a198.sh): tags auto, flat (schedule=flat), flat_bN (flat_blocks_per_sm=N). Cold. Columns: tag op dtype rows d impl hot cold hotGBps coldGBps frac same clean_us clean_frac."
  for rep in 1 2; do
    b auto rmsnorm rmsnorm_bwd --dtype bf16 --shape 16384x2049 --shape 8192x2049 --shape 16384x2048
    b flat rmsnorm rmsnorm_bwd --dtype bf16 --shape 16384x2049 --shape 8192x2049 --variant schedule=flat
    for n in 1 3 4; do
      b flat_b$n rmsnorm rmsnorm_bwd --dtype bf16 --shape 16384x2049 --shape 8192x2049 --variant schedule=flat --variant flat_blocks_per_sm=$n
    done
    for dt in f16 f32; do
      b auto rmsnorm rmsnorm_bwd --dtype $dt --shape 16384x2049 --shape 8192x2050
      b flat rmsnorm rmsnorm_bwd --dtype $dt --shape 16384x2049 --shape 8192x2050 --variant schedule=flat
    done
  done; } > $OUT/bench-flat-198.txt
grep -v "copy ceiling" $OUT/bench-flat-198.txt | awk 'NR>1{print $1,$2,$3,$4,$5,$8,$11}' | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1 -s
echo "total $SECONDS s"
true
