#!/bin/bash
# Call 280. The planner gives rmsnorm_bwd's EARLY build only where the DRAM gives each SM 15 bytes
# a cycle or more (DeviceLimits::dram_bytes_per_sm_cycle, from the device's clocks and bus): 1.
# which build auto runs, and the bytes a cycle the bench child read, on the whole GPU and at
# --sms 96 (rmsnorm_bwd bf16 16384x4096 and 8192x8192, one round each). 2. On an H200: the bench
# of record and the decode row's peers. On an H100: whether the L2 requests kept in stop 60
# (layernorm_bwd's row after next, add_rmsnorm_bwd's next row, 16-bit) also pay on the whole
# GPU, which calls 272-275 timed at --sms 96 only: main's kernels before them
# (.device/kernels-main, 3c40065) against the checkout's, bf16 16384x4096, cold, two rounds.
# Carried: .device/ladder.xz (the checkout's build), .device/kernels-main.
set -u
source reports/h200/device-calls/call_env.sh 280
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc-cand
for s in 0 96; do
  a=""; [ $s = 0 ] || a="--sms $s"
  timeout 60 $B bench rmsnorm_bwd --dtype bf16 --shape 16384x4096 8192x8192 $a --json $OUT/rule-$s.json > /dev/null 2>&1
  python3 - $OUT/rule-$s.json "$a" >> $L <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); t = d["toolchain"]
print("rule", sys.argv[2] or "whole GPU", "sm_count", t.get("sm_count"), "dram_bytes_per_sm_cycle", round(t.get("dram_bytes_per_sm_cycle", 0), 2))
for r in d["results"]:
    if r.get("impl") == "ladder":
        print("  ", r["op"], r["dtype"], f"{r['rows']}x{r['d']}", r.get("cold_us"), [k.get("entry") for k in r.get("kernels", [])][:1])
PY
done
if [[ $card == *H200* ]]; then
  timeout $(left 300) $B bench --json $OUT/bench.json > $OUT/bench-280.txt 2>&1; echo "bench exit $? at $SECONDS s" >> $L
  grep -E "copy ceiling" $OUT/bench-280.txt >> $L
  timeout $(left 370) python3 scripts/bench_peers.py --only add_rmsnorm --shape 1x4096 --cache cold \
    --json $OUT/peers-decode-280.json > $OUT/peers-decode-280.txt 2>&1; echo "peers exit $? at $SECONDS s" >> $L
  (cd $OUT && tar czf /tmp/r.tgz bench-280.txt peers-decode-280.* rule-*.json && rm -f bench-280.txt peers-decode-280.* rule-*.json && mv /tmp/r.tgz call-280-record.tgz)
else
  { for rep in 1 2; do
      for tree in main cand; do
        K=$PWD/kernels; [ $tree = main ] && K=$PWD/.device/kernels-main
        LADDER_KERNELS_DIR=$K LADDER_CACHE_DIR=/tmp/lc-$tree timeout 60 $B bench layernorm_bwd add_rmsnorm_bwd --dtype bf16 \
          --shape 16384x4096 --json $OUT/ab-$tree-$rep.json 2>&1 | grep -E " ladder |rror" | sed "s/^/[$tree $rep] /"
      done
    done
  } > $OUT/ab-280.txt 2>&1
  python3 reports/h200/device-calls/ab_summary.py $OUT main cand > $OUT/ab-280-summary.txt
  cat $OUT/ab-280-summary.txt >> $L
  (cd $OUT && tar czf /tmp/a.tgz ab-*.json ab-280.txt rule-*.json && rm -f ab-*.json ab-280.txt rule-*.json && mv /tmp/a.tgz call-280-ab.tgz)
fi
cat $L
echo "total $SECONDS s"
