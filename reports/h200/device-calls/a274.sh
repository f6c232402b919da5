#!/bin/bash
# Call 274. The one-tile register backward builds on the 16-byte grid that hold no row ahead in
# registers (add_rmsnorm_bwd at every dtype, rmsnorm_bwd fp32 at ITEMS 4) ask the L2 for the next
# row before loading their own (rmsnorm_bwd.cuh), beside layernorm_bwd's 16-bit request for the
# row after next (calls 272-273). 1. A/B, main's kernels (.device/kernels-main) against the
# checkout's, cold, three rounds: every op's default backward rows that run those builds
# (16384x4096 at bf16, f16 and fp32; 65536x1024 at bf16); the whole GPU on an H200, --sms 96 on
# an H100. 2. Every verify rung of the three backward ops on the checkout's kernels. 3. On an
# H200, the bench of record (bench.json) with the kernels 1 keeps.
# Carried: .device/ladder.xz (main's build), .device/kernels-main. Files go to $OUT, tarred but
# for the log and the summary.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
python3 -c "import lzma,sys; open(sys.argv[2],'wb').write(lzma.open(sys.argv[1]).read())" .device/ladder.xz .device/ladder
chmod +x .device/ladder
B=$PWD/.device/ladder
mkdir -p $OUT
L=$OUT/log-274.txt
echo "# Call 274 ($LADDER_COMMIT, a274.sh) on $card, driver $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)" > $L
S=""; [[ $card == *H200* ]] || S="--sms 96"
{ for rep in 1 2 3; do
    for tree in main cand; do
      K=$PWD/kernels; [ $tree = main ] && K=$PWD/.device/kernels-main
      export LADDER_KERNELS_DIR=$K LADDER_CACHE_DIR=/tmp/lc-$tree
      for dt in bf16 f16 f32; do
        timeout 90 $B bench rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd --dtype $dt --shape 16384x4096 $S \
          --json $OUT/ab-$tree-$dt-$rep.json 2>&1 | grep -E " ladder |rror" | sed "s/^/[$tree $rep] /"
      done
      timeout 90 $B bench add_rmsnorm_bwd layernorm_bwd --dtype bf16 --shape 65536x1024 $S \
        --json $OUT/ab-$tree-1024-$rep.json 2>&1 | grep -E " ladder |rror" | sed "s/^/[$tree $rep] /"
    done
  done
  unset LADDER_KERNELS_DIR
} > $OUT/ab-274.txt 2>&1
echo "A/B done at $SECONDS s" >> $L
python3 reports/h200/device-calls/ab_summary.py $OUT main cand > $OUT/ab-274-summary.txt
cat $OUT/ab-274-summary.txt >> $L
export LADDER_CACHE_DIR=/tmp/lc-cand
timeout 200 $B verify rmsnorm_bwd layernorm_bwd add_rmsnorm_bwd --jobs 14 --json $OUT/verify-bwd-274.json > $OUT/verify-bwd-274.txt 2>&1
echo "verify exit $? at $SECONDS s" >> $L
grep -E "rungs:" $OUT/verify-bwd-274.txt | tail -1 >> $L
grep -E " FAIL | UNRESOLVED | XPASS " $OUT/verify-bwd-274.txt | head -10 >> $L
# Tarred now, so that a bench cut short leaves few files (the device returns only a few).
(cd $OUT && tar czf /tmp/c.tgz $(ls | grep -vE '^(log-274.txt|ab-274-summary.txt)$') && rm -f $(ls | grep -vE '^(log-274.txt|ab-274-summary.txt)$') \
  && mv /tmp/c.tgz call-274.tgz)
if [[ $card == *H200* ]]; then
  # The bench of record on an H200: the checkout's kernels where the next-row request was no
  # slower at any row it changes, else the checkout's with main's rmsnorm_bwd.cuh (its only other
  # difference from main is layernorm_bwd's request, kept from calls 272-273).
  cp -r kernels /tmp/ln && cp .device/kernels-main/rmsnorm_bwd.cuh /tmp/ln/rmsnorm_bwd.cuh
  python3 - $OUT/ab-274-summary.txt <<'PY' && K=$PWD/kernels || K=/tmp/ln
import sys
worse = [l for l in open(sys.argv[1]) if not l.startswith(("cold", "layernorm_bwd"))
         and ("missing" in l or float(l.split()[-1]) > 1.005)]
print("".join(worse)); sys.exit(1 if worse else 0)
PY
  echo "bench of record with kernels $K at $SECONDS s" >> $L
  export LADDER_KERNELS_DIR=$K LADDER_CACHE_DIR=/tmp/lc-record
  timeout $(( 570 - SECONDS )) $B bench --json $OUT/bench.json > $OUT/bench-274.txt 2>&1; echo "bench exit $? at $SECONDS s" >> $L
  grep -E "copy ceiling" $OUT/bench-274.txt >> $L
fi
cat $OUT/log-274.txt
echo "total $SECONDS s"
