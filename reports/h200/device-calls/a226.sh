#!/bin/bash
# Call 226: with the shifted register kernels' partial rows now stored in column order (call
# 225), whether they overtake the backward phase kernels at the widths auto gives the phase
# kernels (schedule=regs against auto), two rounds, cold; then the evidence for main: ladder
# bench and scripts/bench_peers.py in the same call. Kernels of main, the carried binary.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT /tmp/t
B=$PWD/.device/ladder
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc
nvidia-smi -L
left() { local l=$(( $1 - SECONDS )); [ $l -lt 5 ] && l=5; echo $l; }
b() { local tag=$1; shift; timeout $(left 200) $B bench "$@" 2>&1 | grep -E " ladder |copy ceiling|rror" | sed "s/^/$tag /"; }
{ echo "# Call 226 ($LADDER_COMMIT, a226.sh): tags auto (the phase kernels at these widths) and regs (schedule=regs). Cold. Columns: tag op dtype rows d impl hot cold hotGBps coldGBps frac same clean_us clean_frac."
  for rep in 1 2; do
    for t in auto regs; do
      V=""; [ $t = regs ] && V="--variant schedule=regs"
      b $t layernorm_bwd --dtype bf16 --shape 16384x1025 --shape 16384x1153 --shape 8192x1537 --shape 8192x1665 --shape 8192x2561 $V
      b $t rmsnorm_bwd --dtype bf16 --shape 8192x1537 --shape 8192x1665 --shape 8192x2561 $V
      b $t add_rmsnorm_bwd --dtype bf16 --shape 16384x769 --shape 16384x1025 --shape 8192x1537 --shape 8192x2049 $V
    done
  done
} > $OUT/bench-regs-226.txt
grep -v "copy ceiling" $OUT/bench-regs-226.txt | awk 'NR>1{print $1,$2,$3,$4,$5,$8,$11}' | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1 -s
grep -i "rror" $OUT/bench-regs-226.txt | head -5
echo "sweep done $SECONDS s"
{ echo "# Call 226 ($LADDER_COMMIT, a226.sh)"; nvidia-smi --query-gpu=name,driver_version --format=csv
  echo "== bench"; (time timeout 170 $B bench --json $OUT/bench.json) 2>&1 | grep -E "copy ceiling|real"
  echo "== peers"; (time timeout 90 python3 scripts/bench_peers.py --json $OUT/peers.json > /tmp/t/peers.txt 2>&1) 2>&1 | grep real; tail -2 /tmp/t/peers.txt
} > $OUT/device_log_226.txt 2>&1
cat $OUT/device_log_226.txt
echo "total $SECONDS s"
true
