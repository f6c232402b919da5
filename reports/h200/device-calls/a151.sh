#!/bin/bash
# Call 151 (prepared, not yet run): the streamed RMSNorm at more rows an SM, as call 149 did for
# the streamed LayerNorm. Copies of kernels/ made here by sed: MSU_N = S chunks in flight a thread
# in the sum-of-squares pass, U in the output pass, the 16-bit launch bound at N thread slots an
# SM (ptxas, sm_90: M42_2048 and M41_2048 32 registers without spills at bf16 128 and 512 threads
# and f16 256; main: 40, at 1536, four and four). Call 137 measured 2048 slots with four chunks in
# the output pass slower (its f16 builds spilled). Against main's kernels (K); two repeats, cold;
# then ladder verify rmsnorm on the copy that wins at most shapes.
set -u
B=$PWD/.device/ladder
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
mk() { local n=$1; rm -rf /tmp/$n; cp -r $PWD/kernels /tmp/$n
  sed -i "s/for_thread_units<T, THREADS, false>/for_thread_units<T, THREADS, false, $2>/; s/for_thread_units<T, THREADS, true>/for_thread_units<T, THREADS, true, $3>/; s/loop_min_blocks(THREADS, sizeof(T), 1536)/loop_min_blocks(THREADS, sizeof(T), $4)/" /tmp/$n/rmsnorm_loop.cuh; }
mk M42_2048 4 2 2048; mk M41_2048 4 1 2048; mk M22_2048 2 2 2048
b() { local tag=$1 k=$2; shift 2; LADDER_KERNELS_DIR=$k LADDER_CACHE_DIR=/tmp/lc-$tag timeout 60 $B bench rmsnorm "$@" 2>&1 | grep -E " ladder |copy ceiling|rror" | sed "s/^/$tag /"; }
S="--shape 16384x4096 --shape 8192x8192 --shape 4096x16384 --shape 2048x32768"
{ for rep in 1 2; do
    for k in K M42_2048 M41_2048 M22_2048; do
      D=/tmp/$k; [ $k = K ] && D=$PWD/kernels
      for dt in bf16 f16; do
        b $k $D --dtype $dt $S
        b $k-loop $D --dtype $dt --shape 65536x1024 --variant schedule=loop
      done
      echo "rep $rep $k done at $SECONDS s" >&2
    done
  done; } > $OUT/bench-rms-occupancy.txt
grep -v "copy ceiling" $OUT/bench-rms-occupancy.txt | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1 | awk '{print $1,$2,$3,$4,$5,$8,$11,"clean",$13,$14}'
for k in M42_2048 M41_2048; do
  if [ $SECONDS -lt 450 ]; then
    { echo "== $k: ladder verify rmsnorm"
      LADDER_KERNELS_DIR=/tmp/$k LADDER_CACHE_DIR=/tmp/lc-$k timeout $((570-SECONDS)) $B verify rmsnorm --jobs 14 2>&1 | grep -E "FAIL|UNRESOLVED|XPASS|rungs:" | tail -20
      echo "exit ${PIPESTATUS[0]} at $SECONDS s"; } | tee -a $OUT/verify-151.txt | tail -3
  else echo "$k verify skipped at $SECONDS s" | tee -a $OUT/verify-151.txt; fi
done
echo "total $SECONDS s"
true
