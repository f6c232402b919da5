#!/bin/bash
# Call 199: schedule=flat rebuilt (kernels/flat_rows.cuh: main threads on the fast path only, one
# edge warp for the chunks that straddle rows, a row path for the last segment; the next segment
# asked of the L2). Its verify rungs (every dtype) and compute-sanitizer over the bf16 ones; then
# flat against auto at d = 2049 with its tuning keys. Cold, two repeats. Files go to $OUT.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
B=$PWD/.device/ladder
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc
nvidia-smi -L
left() { local l=$(( $1 - SECONDS )); [ $l -lt 5 ] && l=5; echo $l; }
$B verify rmsnorm rmsnorm_bwd --no-fixtures --write-ladder /tmp/v.json > /dev/null
timeout $(left 120) $B run --ladder /tmp/v.json '*flat*' --jobs 12 --json $OUT/verify-flat-199.json > $OUT/verify-flat-199.txt 2>&1; echo "verify exit $?"
grep -E "FAIL|UNRESOLVED|XPASS|rungs:" $OUT/verify-flat-199.txt | head -30
for tool in memcheck racecheck; do
  extra=""; [ $tool = memcheck ] && extra="--bare-allocations"
  timeout $(left 230) compute-sanitizer --tool $tool --target-processes all --print-limit 5 $B run --ladder /tmp/v.json '*bf16*flat*' --jobs 8 $extra > /tmp/san.txt 2>&1
  { echo "exit $?"; grep -E "RACECHECK SUMMARY|ERROR SUMMARY|rungs:|Hazard|Invalid|out of bounds|Program hit" /tmp/san.txt | sort | uniq -c; } > $OUT/$tool-flat-199.txt
  echo "== $tool"; cat $OUT/$tool-flat-199.txt
done
echo "checks done at $SECONDS s"
b() { local tag=$1; shift; timeout $(left 570) $B bench "$@" 2>&1 | grep -E " ladder |copy ceiling|rror" | sed "s/^/$tag /"; }
F="--variant schedule=flat"
S2049="--shape 16384x2049 --shape 8192x2049"
{ echo "# Call 199 ($LADDER_COMMIT, a199.sh): tags auto; flat (schedule=flat: forward 96 registers; backward bound 288, MIN_BLOCKS 2, dy held, next segment prefetched); pf0 (flat_prefetch=0); bN (flat_blocks_per_sm=N); mbN (flat_min_blocks=N); rl (flat_reload=1). Cold. Columns: tag op dtype rows d impl hot cold hotGBps coldGBps frac same clean_us clean_frac."
  for rep in 1 2; do
    b auto rmsnorm rmsnorm_bwd --dtype bf16 $S2049 --shape 16384x2048
    b flat rmsnorm rmsnorm_bwd --dtype bf16 $S2049 $F
    b pf0 rmsnorm rmsnorm_bwd --dtype bf16 $S2049 $F --variant flat_prefetch=0
    b b3 rmsnorm --dtype bf16 $S2049 $F --variant flat_blocks_per_sm=3
    b mb1 rmsnorm_bwd --dtype bf16 $S2049 $F --variant flat_min_blocks=1
    b mb3 rmsnorm_bwd --dtype bf16 $S2049 $F --variant flat_min_blocks=3
    b rl rmsnorm_bwd --dtype bf16 $S2049 $F --variant flat_reload=1
    b rl_mb3 rmsnorm_bwd --dtype bf16 $S2049 $F --variant flat_reload=1 --variant flat_min_blocks=3
    for dt in f16 f32; do
      b auto rmsnorm rmsnorm_bwd --dtype $dt --shape 16384x2049
      b flat rmsnorm rmsnorm_bwd --dtype $dt --shape 16384x2049 $F
    done
  done; } > $OUT/bench-flat-199.txt
grep -v "copy ceiling" $OUT/bench-flat-199.txt | awk 'NR>1{print $1,$2,$3,$4,$5,$8,$11}' | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1 -s
echo "total $SECONDS s"
true
