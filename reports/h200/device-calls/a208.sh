#!/bin/bash
# Call 208: auto now reduces layernorm_bwd's weight gradients inside its bulk kernel where
# clusters split the rows (reduce=grid; call 207 measured bf16 1024x32768 1.5 us faster). Three
# rounds, cold, auto against reduce=launch at the widths auto gives clusters (16-bit d = 32768,
# fp32 d = 16384) and rows 512-2048; then every layernorm_bwd verify rung (fp32's default rung
# at d = 16384 now takes the cluster kernel with its own reduce). Files go to $OUT.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
B=$PWD/.device/ladder
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc
nvidia-smi -L
left() { local l=$(( $1 - SECONDS )); [ $l -lt 5 ] && l=5; echo $l; }
b() { local tag=$1; shift; timeout $(left 300) $B bench "$@" 2>&1 | grep -E " ladder |copy ceiling|rror" | sed "s/^/$tag /"; }
{ echo "# Call 208 ($LADDER_COMMIT, a208.sh): tags auto (reduce=grid with clusters), launch (reduce=launch). layernorm_bwd, cold. Columns: tag op dtype rows d impl hot cold hotGBps coldGBps frac same clean_us clean_frac."
  for rep in 1 2 3; do
    for tag in auto launch; do
      V=""; [ $tag = launch ] && V="--variant reduce=launch"
      b $tag layernorm_bwd --dtype bf16 --shape 512x32768 --shape 1024x32768 --shape 2048x32768 $V
      b $tag layernorm_bwd --dtype f16 --shape 1024x32768 --shape 2048x32768 $V
      b $tag layernorm_bwd --dtype f32 --shape 1024x16384 --shape 2048x16384 $V
    done
  done; } > $OUT/bench-grid-reduce-208.txt
grep -v "copy ceiling" $OUT/bench-grid-reduce-208.txt | awk 'NR>1{print $1,$2,$3,$4,$5,$8,$11}' | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1 -s
echo "bench done $SECONDS s"
$B verify layernorm_bwd --write-ladder /tmp/vl.json > /dev/null
timeout $(left 560) $B run --ladder /tmp/vl.json --jobs 12 --json $OUT/verify-layernorm-bwd-208.json > $OUT/verify-layernorm-bwd-208.txt 2>&1; echo "verify exit $?"
grep -E "FAIL|UNRESOLVED|XPASS|rungs:" $OUT/verify-layernorm-bwd-208.txt | head -30
echo "total $SECONDS s"
true
