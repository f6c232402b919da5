#!/bin/bash
# Call 175: reduce=grid (the backward's final reduce inside the kernel after a grid-wide barrier,
# launched cooperatively) against auto's two launches: the selftest's uncooperative launch must
# trap; verify of the reduce=grid rungs (every dtype); the bench, cold, two repeats, both in one
# binary. Files go to $OUT.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
B=$PWD/.device/ladder
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc
nvidia-smi -L
{ timeout 120 $B run --ladder probes/selftest.json 'st_bwd_grid*' 'st_phase*' --jobs 4; echo "exit $?"; } > $OUT/selftest-175.txt 2>&1
tail -6 $OUT/selftest-175.txt
$B verify rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd --write-ladder /tmp/vb.json > /dev/null
{ timeout 240 $B run --ladder /tmp/vb.json '*reduce*' --jobs 8; echo "exit $?"; } > $OUT/verify-reduce-175.txt 2>&1
tail -3 $OUT/verify-reduce-175.txt; grep -E "FAIL|UNRESOLVED|XPASS" $OUT/verify-reduce-175.txt | head
b() { local tag=$1; shift; timeout 150 $B bench "$@" 2>&1 | grep -E " ladder |copy ceiling|rror" | sed "s/^/$tag /"; }
S="--shape 8192x2048 --shape 8192x2049 --shape 16384x2049 --shape 2048x16384 --shape 4096x8192 --shape 16384x4096"
{ echo "# Call 175 ($LADDER_COMMIT, a175.sh): backward, auto's plans ('auto', two launches) and reduce=grid ('grid'), cold, two repeats. Columns: tag op dtype rows d impl hot cold hotGBps coldGBps frac same clean_us clean_frac."
  for rep in 1 2; do
    b auto rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd --dtype bf16 $S
    b grid rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd --dtype bf16 $S --variant reduce=grid
    b auto rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd --dtype f32 --shape 1024x16384 --shape 8192x2049
    b grid rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd --dtype f32 --shape 1024x16384 --shape 8192x2049 --variant reduce=grid
    b auto layernorm_bwd --dtype f16 --shape 1024x32768
    b grid layernorm_bwd --dtype f16 --shape 1024x32768 --variant reduce=grid
  done; } > $OUT/bench-grid-reduce-175.txt
grep -v "copy ceiling" $OUT/bench-grid-reduce-175.txt | awk 'NR>1{print $1,$2,$3,$4,$5,$8,$11}' | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1 -s
echo "total $SECONDS s"
true
