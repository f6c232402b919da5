#!/bin/bash
# Call 104: the decode kernels (kernels/decode_norm.cuh, schedule=decode, auto for few rows on
# the 16-byte grid at one chunk a thread) against the register kernel they replace there
# (schedule=regs), one binary: event times (bench, two repeats) and Nsight Compute kernel times
# with caches flushed and not; the add_rmsnorm peers in the same call (torch.compile's decode row);
# verify rmsnorm and add_rmsnorm (the decode variants included). Then, for the report's open
# rows: layernorm bf16 16384x4096 at ITEMS 2, 4 and wide, and the backward kernels at 4096x8192.
set -u
B=$PWD/.device/ladder
export LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p /tmp/o $OUT
for rep in 1 2; do
  for sc in regs auto; do
    timeout 100 $B bench rmsnorm add_rmsnorm --dtype bf16 --shape 1x4096 --shape 1x2048 --shape 8x4096 \
      --shape 64x4096 --shape 128x4096 --shape 32x1024 --variant schedule=$sc 2>&1 | grep " ladder" | sed "s/^/$sc /"
  done
done > /tmp/o/bench-decode.txt 2>&1
sort -k2,2 -k4,4n -k5,5n -k1,1 /tmp/o/bench-decode.txt | awk '{print $1,$2,$4,$5,$7,$8,$NF}'
for sc in regs auto; do for op in rmsnorm add_rmsnorm; do for cc in all none; do
  echo "## $op 1x4096 bf16 schedule=$sc, --cache-control $cc"
  timeout 60 ncu --target-processes all --clock-control none --cache-control $cc \
    --metrics gpu__time_duration.sum --launch-skip 2 --launch-count 8 -k regex:"^${op}_fwd" \
    $B bench $op --dtype bf16 --shape 1x4096 --iters 20 --variant schedule=$sc 2>&1 | grep gpu__time_duration | awk '{print $NF}' | tr '\n' ' '
  echo
done; done; done | tee /tmp/o/ncu-decode-ab.txt
cp /tmp/o/bench-decode.txt /tmp/o/ncu-decode-ab.txt $OUT/
timeout 150 python3 scripts/bench_peers.py --only add_rmsnorm --cache cold --json /tmp/o/peers-add.json > /tmp/o/peers-add.txt 2>&1; echo "peers exit $?"
grep -E " 1 +4096|1x4096" /tmp/o/peers-add.txt | head
cp /tmp/o/peers-add.txt /tmp/o/peers-add.json $OUT/ 2>/dev/null
timeout 200 $B verify rmsnorm add_rmsnorm --jobs 14 > /tmp/o/verify-decode-full.txt 2>&1; echo "verify exit $?"
grep -E "FAIL|UNRESOLVED|XPASS|rungs:" /tmp/o/verify-decode-full.txt | head -20 | tee /tmp/o/verify-decode.txt
grep -E "decode" /tmp/o/verify-decode-full.txt | head -20
cp /tmp/o/verify-decode.txt /tmp/o/verify-decode-full.txt $OUT/
for v in items=2 items=4 schedule=wide; do
  timeout 60 $B bench layernorm --dtype bf16 --shape 16384x4096 --shape 8192x8192 --variant $v 2>&1 | grep " ladder" | sed "s/^/$v /"
done | tee /tmp/o/bench-layernorm-items.txt
timeout 100 $B bench rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd --dtype bf16 --shape 4096x8192 --shape 16384x4096 2>&1 | grep " ladder" | tee /tmp/o/bench-bwd-8192.txt
cp /tmp/o/bench-layernorm-items.txt /tmp/o/bench-bwd-8192.txt $OUT/
true
