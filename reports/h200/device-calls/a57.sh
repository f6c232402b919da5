#!/bin/bash
# Call 57 (main 6e86f67): "sel" kernels (per-row means as products with 1/d and rsqrtf, in
# layernorm_fwd and the backward kernels only) and "lean" (call 56's) against main, two repeats;
# ladder verify --quick on sel.
set -u
B=$PWD/.device/ladder
export LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=6e86f67
for rep in 1 2; do for k in sel lean main; do
  if [ $k != main ]; then export LADDER_KERNELS_DIR=$PWD/.device/$k/kernels; else unset LADDER_KERNELS_DIR; fi
  $B bench layernorm --dtype bf16 --shape 16384x4096 --shape 65536x1024 --shape 16384x2049 2>&1 | grep " ladder" | sed "s/^/$k /"
  $B bench layernorm layernorm_bwd --dtype f32 --shape 16384x4096 2>&1 | grep " ladder" | sed "s/^/$k /"
  $B bench rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd --dtype bf16 --shape 16384x4096 --shape 65536x1024 --shape 4096x8192 --shape 8192x2049 2>&1 | grep " ladder" | sed "s/^/$k /"
  $B bench layernorm_bwd --dtype f16 --shape 16384x4096 2>&1 | grep " ladder" | sed "s/^/$k /"
done; done > /tmp/ab57.txt 2>&1
awk '{print $1,$2,$3,$4,$5,$8,$NF}' /tmp/ab57.txt | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1 
export LADDER_KERNELS_DIR=$PWD/.device/sel/kernels
$B verify --quick --jobs 12 --json /tmp/verify57.json > /tmp/verify57.txt 2>&1; echo "verify rc $?"; tail -1 /tmp/verify57.txt
tar -C /tmp -czf $OUT/texts.tgz ab57.txt verify57.txt verify57.json
