#!/bin/bash
# Call 268. On an H200: a267.sh's H200 part (the bench of record, the decode row's peers, the
# forward verify until END_S). On an H100: the backward's plans at the H200 stand-in that call 267
# calibrated (--sms 96 gave the H200's verdict on all 16 backward target rows, within 0.01-0.05
# of its fractions): every bulk plan key of rmsnorm_bwd, layernorm_bwd and add_rmsnorm_bwd bf16 at
# 1024x32768 and 2048x16384, two rounds, cold, to find a plan that beats auto where the H200 is short.
# Carried: .device/ladder (main's build, stripped). Files go to $OUT.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
if [[ $card == *H200* ]]; then exec bash reports/h200/device-calls/a267.sh; fi
B=$PWD/.device/ladder
mkdir -p $OUT
export LADDER_CACHE_DIR=/tmp/lc-main
L=$OUT/log-268.txt
echo "# Call 268 ($LADDER_COMMIT, a268.sh) on $card, driver $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)" > $L
{ for rep in 1 2; do
    for v in "" "reduce=grid" "reduce=launch" "bulk_cluster=1" "bulk_cluster=2" "bulk_pool=1" "bulk_pool=2" \
             "cluster_exchange=barrier" "pdl=0"; do
      [ $SECONDS -lt ${END_S:-400} ] || break 2
      a=""; [ -z "$v" ] || a="--variant $v"
      timeout 60 $B bench rmsnorm_bwd layernorm_bwd add_rmsnorm_bwd --dtype bf16 --shape 1024x32768 \
        --shape 2048x16384 --sms 96 $a --json $OUT/v-${v:-auto}-$rep.json 2>&1 | grep -E " ladder |rror" | sed "s/^/[${v:-auto} $rep] /"
    done
    echo "round $rep done at $SECONDS s"
  done
} > $OUT/sweep-bwd-sms96-268.txt 2>&1
python3 - $OUT >> $OUT/sweep-bwd-sms96-268.txt <<'PY'
import glob, json, os, statistics, sys
runs = {}
for f in glob.glob(os.path.join(sys.argv[1], "v-*.json")):
    name = os.path.basename(f)[2:-5].rsplit("-", 1)[0]
    for r in json.load(open(f))["results"]:
        if r.get("impl") != "ladder": continue
        k = (r["op"], f"{r['rows']}x{r['d']}")
        runs.setdefault(k, {}).setdefault(name, []).append(r.get("cold_us") if "error" not in r else None)
print("\ncold us per round by plan at --sms 96 (ratio of the mean to auto's)")
for k in sorted(runs):
    base = statistics.mean(x for x in runs[k].get("auto", [0]) if x) if any(runs[k].get("auto", [])) else None
    print(f"## {k[0]} bf16 {k[1]}")
    for name, xs in sorted(runs[k].items(), key=lambda kv: (kv[0] != "auto", kv[0])):
        ok = [x for x in xs if x]
        m = statistics.mean(ok) if ok else None
        print(f"  {name:<26} " + "/".join("err" if x is None else f"{x:.2f}" for x in xs)
              + (f" mean {m:.2f} ({m / base:.3f})" if m and base else ""))
PY
(cd $OUT && tar czf /tmp/v.tgz v-*.json && rm -f v-*.json && mv /tmp/v.tgz sweep-bwd-268.tgz)
echo "sweep done at $SECONDS s" >> $L
cat $L; sed -n '/cold us per round/,$p' $OUT/sweep-bwd-sms96-268.txt
echo "total $SECONDS s"
