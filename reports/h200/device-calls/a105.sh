#!/bin/bash
# Call 105: rmsnorm 16-bit rows of 16385..32768 under the wide kernel's launch bound of 512
# (rmsnorm_fwd<T, 8, 512, true>: one tile, the weight staged in shared memory) against auto's
# staged schedule (rmsnorm_fwd_staged<T, 4, 3>, one 1024-thread block an SM). One binary, two
# kernel trees: kernels/ (two blocks an SM: __launch_bounds__(512, 2), 64 registers, a 68-76
# byte spill) and exp/k1 (one block an SM: no minimum, no spill). Two repeats. Then verify
# rmsnorm (its wide variants run rows of 32765 and 32768 on the 512 build).
set -u
B=$PWD/.device/ladder
export LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p /tmp/o $OUT
for rep in 1 2; do
  for k in auto wide2 wide1; do
    case $k in auto) kd=$PWD/kernels; v=schedule=auto ;; wide2) kd=$PWD/kernels; v=schedule=wide ;; wide1) kd=$PWD/exp/k1/kernels; v=schedule=wide ;; esac
    for dt in bf16 f16; do
      LADDER_KERNELS_DIR=$kd timeout 100 $B bench rmsnorm --dtype $dt --shape 2048x32768 --shape 512x32768 \
        --shape 4096x32768 --shape 4096x24576 --variant $v 2>&1 | grep " ladder" | sed "s/^/$k /"
    done
  done
done > /tmp/o/bench-rms-wide512.txt 2>&1
sort -k3,3 -k4,4n -k5,5n -k1,1 /tmp/o/bench-rms-wide512.txt | awk '{print $1,$3,$4,$5,$7,$8,$NF}'
cp /tmp/o/bench-rms-wide512.txt $OUT/
timeout 200 $B verify rmsnorm --jobs 14 > /tmp/o/verify-rms-full.txt 2>&1; echo "verify exit $?"
grep -E "FAIL|UNRESOLVED|XPASS|rungs:" /tmp/o/verify-rms-full.txt | head -20 | tee /tmp/o/verify-rms.txt
grep -E "schedule_wide" /tmp/o/verify-rms-full.txt | head -20
cp /tmp/o/verify-rms.txt /tmp/o/verify-rms-full.txt $OUT/
true
