#!/bin/bash
# Call 270. The bulk backward kernels' stage refill moved ahead of the cluster's row-sum exchange
# (cluster_row_sum's `between`): a block's next row copies start once its own threads are done
# with the stage, not once the other block's totals have arrived. Only the split-row (_cluster)
# builds change. 1. A/B, main's kernels (.device/kernels-main) against the checkout's, two rounds,
# cold, at the split-row shapes (bf16 1024x32768, fp32 1024x16384, and bf16 2048x16384 with the
# split forced), on the whole GPU on an H200, at --sms 96 (the stand-in) on an H100. 2. Every
# _cluster verify rung on the checkout's kernels. 3. On an H200, a267.sh (the bench of record, the
# decode peers, the forward verify) on the checkout's kernels if they were no slower in 1, else
# on main's; on an H100, a269.sh (the backward plan sweeps) with the time left.
# Carried: .device/ladder (main's build, stripped), .device/kernels-main. Files go to $OUT.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
END_S=${END_S:-540}
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
B=$PWD/.device/ladder
mkdir -p $OUT
L=$OUT/log-270.txt
echo "# Call 270 ($LADDER_COMMIT, a270.sh) on $card, driver $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)" > $L
S=""; [[ $card == *H200* ]] || S="--sms 96"
{ for rep in 1 2; do
    for tree in main new; do
      K=$PWD/kernels; [ $tree = main ] && K=$PWD/.device/kernels-main
      export LADDER_KERNELS_DIR=$K LADDER_CACHE_DIR=/tmp/lc-$tree
      for c in "bf16 1024x32768" "f32 1024x16384" "bf16 2048x16384 --variant schedule=bulk --variant bulk_cluster=2"; do
        set -- $c
        timeout 90 $B bench rmsnorm_bwd layernorm_bwd add_rmsnorm_bwd --dtype $1 --shape $2 ${@:3} $S \
          --json $OUT/ab-$tree-$1-$2${3:+-split}-$rep.json 2>&1 | grep -E " ladder |rror|timed on" | sed "s/^/[$tree $rep] /"
      done
    done
  done
  unset LADDER_KERNELS_DIR
} > $OUT/ab-270.txt 2>&1
echo "A/B done at $SECONDS s" >> $L
python3 - $OUT > $OUT/ab-270-summary.txt <<'PY'
import glob, json, os, statistics, sys
t = {}
for f in glob.glob(os.path.join(sys.argv[1], "ab-*.json")):
    tree, rest = os.path.basename(f)[3:-5].split("-", 1)
    split = "split" if "-split-" in f else ""
    for r in json.load(open(f))["results"]:
        if r.get("impl") != "ladder" or "error" in r: continue
        k = (r["op"], r["dtype"], f"{r['rows']}x{r['d']}", split)
        t.setdefault(k, {}).setdefault(tree, []).append(r["cold_us"])
worse = 0
for k in sorted(t):
    m, n = t[k].get("main", []), t[k].get("new", [])
    if not m or not n: print(k, "missing"); worse += 1; continue
    ratio = statistics.mean(n) / statistics.mean(m)
    worse += ratio > 1.005
    print(f"{' '.join(k):<44} main {'/'.join(f'{x:.2f}' for x in m)}  new {'/'.join(f'{x:.2f}' for x in n)}  new/main {ratio:.3f}")
print("verdict:", "new no slower" if worse == 0 else f"new slower on {worse}")
PY
cat $OUT/ab-270-summary.txt >> $L
export LADDER_CACHE_DIR=/tmp/lc-new
$B verify rmsnorm_bwd layernorm_bwd add_rmsnorm_bwd --write-ladder /tmp/bwd.json > /dev/null 2>&1
timeout 150 $B run --ladder /tmp/bwd.json '*cluster*' --jobs 14 --json $OUT/verify-cluster-270.json > $OUT/verify-cluster-270.txt 2>&1
echo "cluster verify exit $? at $SECONDS s" >> $L
grep -E "rungs:" $OUT/verify-cluster-270.txt | tail -1 >> $L
grep -E " FAIL | UNRESOLVED | XPASS " $OUT/verify-cluster-270.txt | head -10 >> $L
cat $L
left=$(( END_S - SECONDS ))
if [[ $card == *H200* ]]; then
  grep -q "new no slower" $OUT/ab-270-summary.txt || export LADDER_KERNELS_DIR=$PWD/.device/kernels-main
  echo "a267 with kernels ${LADDER_KERNELS_DIR:-checkout} and END_S $left" >> $L
  END_S=$left exec bash reports/h200/device-calls/a267.sh
fi
[ $left -gt 60 ] && END_S=$left exec bash reports/h200/device-calls/a269.sh
