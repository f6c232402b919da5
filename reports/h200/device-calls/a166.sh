#!/bin/bash
# Call 166: auto takes schedule=warp for 16-bit rows off the 16-byte grid of 129-193 chunks.
# auto's plans at those widths (cold, two repeats), then ladder verify of the three forward ops
# (every dtype and variant, fixtures included). Files go to $OUT as each step ends.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
B=$PWD/.device/ladder
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc
nvidia-smi -L
b() { local tag=$1; shift; timeout 120 $B bench "$@" 2>&1 | grep -E " ladder |copy ceiling|rror" | sed "s/^/$tag /"; }
{ echo "# Call 166 ($LADDER_COMMIT, a166.sh): auto's plans (schedule=warp at 129-193 chunks), 'regs' = schedule=regs (the register geometry auto took before); two repeats, cold. Columns: tag op dtype rows d impl hot cold hotGBps coldGBps frac same clean_us clean_frac."
  for rep in 1 2; do
    b auto rmsnorm add_rmsnorm layernorm --dtype bf16 --shape 16384x1025 --shape 16384x1537 --shape 4096x1025 --shape 65536x1025
    b regs rmsnorm add_rmsnorm layernorm --dtype bf16 --shape 16384x1025 --shape 16384x1537 --shape 4096x1025 --shape 65536x1025 --variant schedule=regs
  done; } > $OUT/bench-warp-auto-166.txt
grep -v "copy ceiling" $OUT/bench-warp-auto-166.txt | awk 'NR>1{print $1,$2,$3,$4,$5,$8,$11}' | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1 -s
{ echo "== ladder verify rmsnorm add_rmsnorm layernorm"
  timeout $((560-SECONDS)) $B verify rmsnorm add_rmsnorm layernorm --jobs 14 --json $OUT/verify-fwd-166.json > /tmp/v.txt 2>&1
  echo "exit $? at $SECONDS s"; grep -E " FAIL | UNRESOLVED | XPASS " /tmp/v.txt | head -20; grep -E "rungs:" /tmp/v.txt | tail -1; } | tee $OUT/verify-fwd-166.txt
echo "total $SECONDS s"
true
