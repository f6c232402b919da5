#!/bin/bash
# Call 70: the packed-span forward kernels with the weight held two ways (weight_copies=shifted:
# VEC shifted copies in shared memory; one: the weight alone, read with a funnel shift), against
# the default schedule, two repeats; then ladder verify of the forward ops (every dtype).
set -u
B=$PWD/.device/ladder
export LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p /tmp/o
for rep in 1 2; do
  for op in rmsnorm add_rmsnorm layernorm; do for dt in bf16 f16 f32; do
    shapes="--shape 16384x2049 --shape 8192x2049 --shape 16384x769 --shape 4096x5125"
    $B bench $op --dtype $dt $shapes 2>&1 | grep " ladder" | sed "s/^/auto /"
    for wc in shifted one; do
      $B bench $op --dtype $dt $shapes --variant schedule=packed --variant weight_copies=$wc 2>&1 | grep " ladder" | sed "s/^/$wc /"
    done
  done; done
done > /tmp/o/bench-packed.txt 2>&1
awk '{print $1,$2,$3,$4,$5,$8,$NF}' /tmp/o/bench-packed.txt | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1 | awk '{k=$2" "$3" "$4" "$5" "$1; a[k]=a[k]" "$6"/"$7} END {for (k in a) print k, a[k]}' | sort
for op in add_rmsnorm layernorm; do for nt in 256 1024; do
  $B bench $op --dtype bf16 --shape 16384x2049 --variant schedule=packed --variant weight_copies=one --variant packed_threads=$nt 2>&1 | grep " ladder" | sed "s/^/one-threads$nt /"
done; done > /tmp/o/sweep-packed.txt 2>&1
awk '{print $1,$2,$3,$4,$5,$8,$NF}' /tmp/o/sweep-packed.txt
( time $B verify rmsnorm add_rmsnorm layernorm --no-fixtures --json /tmp/o/verify-packed.json --jobs 8 ) > /tmp/o/verify.txt 2>&1
grep -E "FAIL|UNRESOLVED|rungs:|real" /tmp/o/verify.txt | tail -5
cp /tmp/o/*.json /tmp/o/*.txt $OUT/ 2>/dev/null
true
