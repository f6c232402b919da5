#!/bin/bash
# Call 275. add_rmsnorm_bwd's 16-bit one-tile builds on the 16-byte grid ask the L2 for the next
# row only in blocks of 256 threads or more (call 274: 0.948-0.950 at 16384x4096, 256 threads;
# 1.040 at bf16 65536x1024, 64 threads; fp32 builds no longer ask). A/B, main's kernels against
# the checkout's, cold, two rounds, --sms 96 on an H100 (whole GPU on an H200); then every
# add_rmsnorm_bwd verify rung on the checkout's kernels.
# Carried: .device/ladder.xz (main's build), .device/kernels-main.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
python3 -c "import lzma,sys; open(sys.argv[2],'wb').write(lzma.open(sys.argv[1]).read())" .device/ladder.xz .device/ladder
chmod +x .device/ladder
B=$PWD/.device/ladder
mkdir -p $OUT
L=$OUT/log-275.txt
echo "# Call 275 ($LADDER_COMMIT, a275.sh) on $card, driver $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)" > $L
S=""; [[ $card == *H200* ]] || S="--sms 96"
{ for rep in 1 2; do
    for tree in main cand; do
      K=$PWD/kernels; [ $tree = main ] && K=$PWD/.device/kernels-main
      export LADDER_KERNELS_DIR=$K LADDER_CACHE_DIR=/tmp/lc-$tree
      timeout 60 $B bench add_rmsnorm_bwd --dtype bf16 --shape 16384x4096 65536x1024 $S \
        --json $OUT/ab-$tree-bf16-$rep.json 2>&1 | grep -E " ladder |rror" | sed "s/^/[$tree $rep] /"
      timeout 60 $B bench add_rmsnorm_bwd --dtype f16 --shape 16384x4096 $S \
        --json $OUT/ab-$tree-f16-$rep.json 2>&1 | grep -E " ladder |rror" | sed "s/^/[$tree $rep] /"
    done
  done
  unset LADDER_KERNELS_DIR
} > $OUT/ab-275.txt 2>&1
echo "A/B done at $SECONDS s" >> $L
python3 reports/h200/device-calls/ab_summary.py $OUT main cand > $OUT/ab-275-summary.txt
cat $OUT/ab-275-summary.txt >> $L
export LADDER_CACHE_DIR=/tmp/lc-cand
timeout 100 $B verify add_rmsnorm_bwd --jobs 14 --json $OUT/verify-add-bwd-275.json > $OUT/verify-add-bwd-275.txt 2>&1
echo "verify exit $? at $SECONDS s" >> $L
grep -E "rungs:" $OUT/verify-add-bwd-275.txt | tail -1 >> $L
grep -E " FAIL | UNRESOLVED | XPASS " $OUT/verify-add-bwd-275.txt | head -10 >> $L
(cd $OUT && tar czf /tmp/c.tgz $(ls | grep -vE '^(log-275.txt|ab-275-summary.txt)$') && rm -f $(ls | grep -vE '^(log-275.txt|ab-275-summary.txt)$') \
  && mv /tmp/c.tgz call-275.tgz)
cat $L
echo "total $SECONDS s"
