#!/bin/bash
# Call 78: "main" = each kernel's edge-store policy from call 77 (norm::Edge) plus load_tile
# zeroing an edge thread's chunks before its 16-byte loads, against "head" (commit 283ab74's
# kernels, exp/kernels_head), same binary; two repeats; then verify (quick grid) on main.
set -u
B=$PWD/.device/ladder
export LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p /tmp/o
for rep in 1 2; do
  for k in head main; do
    if [ $k = main ]; then kd=$PWD/kernels; else kd=$PWD/exp/kernels_$k; fi
    export LADDER_KERNELS_DIR=$kd
    $B bench rmsnorm_bwd layernorm_bwd add_rmsnorm_bwd --dtype bf16 --shape 8192x2049 --shape 16384x2049 --shape 16384x2056 --shape 16384x4096 --shape 4096x5125 2>&1 | grep " ladder" | sed "s/^/$k /"
    $B bench rmsnorm_bwd layernorm_bwd add_rmsnorm_bwd --dtype f32 --shape 8192x2049 --shape 16384x4096 2>&1 | grep " ladder" | sed "s/^/$k /"
    $B bench add_rmsnorm rmsnorm layernorm --dtype bf16 --shape 16384x4096 --shape 65536x1024 --shape 16384x2049 2>&1 | grep " ladder" | sed "s/^/$k /"
    $B bench add_rmsnorm rmsnorm layernorm --dtype f32 --shape 16384x4096 2>&1 | grep " ladder" | sed "s/^/$k /"
    $B bench rmsnorm add_rmsnorm --dtype bf16 --shape 16384x2049 --shape 4096x2049 --variant schedule=regs 2>&1 | grep " ladder" | sed "s/^/$k regs /"
  done
done > /tmp/o/bench-edge-loads.txt 2>&1
unset LADDER_KERNELS_DIR
$B verify --quick --no-fixtures --jobs 12 > /tmp/o/verify-edge-loads.txt 2>&1; echo "verify exit $?"
grep -E "FAIL|UNRESOLVED|rungs:" /tmp/o/verify-edge-loads.txt | head
sed 's/ regs / regs_/' /tmp/o/bench-edge-loads.txt | awk '{print $1,$2,$3,$4,$5,$8,$NF}' | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1
cp /tmp/o/*.txt $OUT/ 2>/dev/null
true
