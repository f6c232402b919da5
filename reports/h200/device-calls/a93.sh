#!/bin/bash
# Call 93: skewed weight reads as 32-bit words (exp/kernels_words: load_skewed reads four words,
# or five and a fixed 16-bit byte_perm for odd 16-bit skews, instead of two aligned 16-byte loads
# and a funnel shift whose word choice is a chain of selects) against main, same binary, two
# repeats; only the OFF_GRID and SHIFTED builds change. Then verify --quick of every op on them.
set -u
B=$PWD/.device/ladder
export LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p /tmp/o
for rep in 1 2; do
  for k in main words; do
    if [ $k = main ]; then kd=$PWD/kernels; else kd=$PWD/exp/kernels_$k; fi
    export LADDER_KERNELS_DIR=$kd
    timeout 100 $B bench rmsnorm add_rmsnorm layernorm --dtype bf16 --shape 16384x2049 --shape 8192x2049 --shape 4096x5125 2>&1 | grep " ladder" | sed "s/^/$k /"
    timeout 60 $B bench layernorm add_rmsnorm --dtype f16 --shape 16384x2049 2>&1 | grep " ladder" | sed "s/^/$k /"
    timeout 60 $B bench rmsnorm layernorm --dtype f32 --shape 8192x2049 --shape 4096x5125 2>&1 | grep " ladder" | sed "s/^/$k /"
    timeout 100 $B bench rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd --dtype bf16 --shape 8192x2049 --shape 16384x2049 2>&1 | grep " ladder" | sed "s/^/$k /"
  done
done > /tmp/o/bench-skew-words.txt 2>&1
export LADDER_KERNELS_DIR=$PWD/exp/kernels_words
timeout 150 $B verify --quick --jobs 14 > /tmp/o/verify-words-full.txt 2>&1; echo "verify exit $?"
grep -E "FAIL|UNRESOLVED|rungs:" /tmp/o/verify-words-full.txt | head -20 > /tmp/o/verify-words.txt
cat /tmp/o/verify-words.txt
awk '{print $1,$2,$3,$4,$5,$8,$NF}' /tmp/o/bench-skew-words.txt | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1
mkdir -p $OUT; cp /tmp/o/bench-skew-words.txt /tmp/o/verify-words.txt $OUT/ 2>/dev/null
true
