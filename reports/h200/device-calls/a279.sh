#!/bin/bash
# Call 279. On an H200: the bench of record (bench.json) on the checkout's build (rmsnorm_bwd's
# EARLY build where auto takes it, measured faster in calls 276-277 on an H100), the decode row's
# peers, then every forward verify rung with the time left. On an H100: why EARLY is faster,
# on the whole GPU: 1. the A/B of calls 276-277 without --sms (bf16 16384x4096, 8192x8192,
# 4096x8192; early=0 against early=1, cold, two rounds); 2. Nsight Compute (speed of light,
# occupancy, warp states, memory) of rmsnorm_bwd's row kernel at bf16 8192x8192 and 16384x4096,
# early=0 and early=1, caches flushed; 3. the three backward ops at bf16 16384x4096 with items=1
# (512 threads) against auto, --sms 96.
# Carried: .device/ladder.xz (the checkout's build). Files go to $OUT.
set -u
source reports/h200/device-calls/call_env.sh 279
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc-cand
if [[ $card == *H200* ]]; then
  timeout $(left 260) $B bench --json $OUT/bench.json > $OUT/bench-279.txt 2>&1; echo "bench exit $? at $SECONDS s" >> $L
  grep -E "copy ceiling" $OUT/bench-279.txt >> $L
  timeout $(left 330) python3 scripts/bench_peers.py --only add_rmsnorm --shape 1x4096 --cache cold \
    --json $OUT/peers-decode-279.json > $OUT/peers-decode-279.txt 2>&1; echo "peers exit $? at $SECONDS s" >> $L
  (cd $OUT && tar czf /tmp/r.tgz bench-279.txt peers-decode-279.* && rm -f bench-279.txt peers-decode-279.* && mv /tmp/r.tgz call-279-record.tgz)
  timeout $(left 575) $B verify rmsnorm add_rmsnorm layernorm --jobs 14 > $OUT/verify-fwd-279.txt 2>&1
  echo "verify (forward) exit $? at $SECONDS s" >> $L
  grep -E "rungs:" $OUT/verify-fwd-279.txt | tail -1 >> $L
  grep -E " FAIL | UNRESOLVED | XPASS " $OUT/verify-fwd-279.txt | head -10 >> $L
  gzip -f $OUT/verify-fwd-279.txt
else
  { for rep in 1 2; do
      for tree in late early; do
        e=0; [ $tree = early ] && e=1
        timeout 60 $B bench rmsnorm_bwd --dtype bf16 --shape 16384x4096 8192x8192 4096x8192 --variant early=$e \
          --json $OUT/ab-$tree-whole-$rep.json 2>&1 | grep -E " ladder |rror" | sed "s/^/[$tree $rep] /"
      done
    done
  } > $OUT/ab-279.txt 2>&1
  python3 reports/h200/device-calls/ab_summary.py $OUT late early > $OUT/ab-279-summary.txt
  cat $OUT/ab-279-summary.txt >> $L
  N=$OUT/ncu-early-279.txt
  for shape in 8192x8192 16384x4096; do
    for e in 0 1; do
      echo "## rmsnorm_bwd bf16 $shape early=$e" >> $N
      timeout 100 ncu --clock-control none --cache-control all --section SpeedOfLight --section Occupancy \
        --section WarpStateStats --section MemoryWorkloadAnalysis --section LaunchStats -k regex:'rmsnorm_bwd' \
        --launch-skip 4 --launch-count 1 $B bench rmsnorm_bwd --dtype bf16 --shape $shape --variant early=$e --iters 2 2>&1 \
        | grep -vE "^==PROF==|^\s*$|^\[" | grep -v " ladder " >> $N
    done
  done
  grep -E "^##|Duration|DRAM Throughput|Memory Throughput|Issue Slots Busy|Issued Warp|Warp Cycles Per Issued|Achieved Occupancy|Registers Per|Stall Long" $N >> $L
  (cd $OUT && tar czf /tmp/a.tgz ab-*.json ab-279.txt && rm -f ab-*.json ab-279.txt && mv /tmp/a.tgz call-279-ab.tgz)
  # 3. The three backward ops at bf16 16384x4096 in 512-thread blocks of one chunk a thread
  #   (items=1: the fused op's one build with a row ahead in registers) against auto (256
  #   threads, two chunks), --sms 96, cold, two rounds.
  { for rep in 1 2; do
      for tree in auto items1; do
        v=""; [ $tree = items1 ] && v="--variant items=1"
        timeout 60 $B bench rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd --dtype bf16 --shape 16384x4096 --sms 96 $v \
          --json $OUT/ab-$tree-$rep.json 2>&1 | grep -E " ladder |rror" | sed "s/^/[$tree $rep] /"
      done
    done
  } > $OUT/items-279.txt 2>&1
  python3 reports/h200/device-calls/ab_summary.py $OUT auto items1 > $OUT/items-279-summary.txt
  cat $OUT/items-279-summary.txt >> $L
  (cd $OUT && tar czf /tmp/i.tgz ab-*.json items-279.txt && rm -f ab-*.json items-279.txt && mv /tmp/i.tgz call-279-items.tgz)
fi
cat $L
echo "total $SECONDS s"
