#!/bin/bash
# Call 269. On an H200: a267.sh's H200 part (the bench of record, the decode row's peers, the
# forward verify until END_S). On an H100: the backward's plans at the rows of 2049 (the furthest
# below 0.75 on the H200: 0.47-0.52) and layernorm_bwd fp32 1024x16384, at the stand-in call 267
# calibrated (--sms 96), every schedule and its keys, two rounds, cold: call 268 swept only
# 1024x32768 and 2048x16384. weight=none / affine=0 time each without its weight gradients.
# Carried: .device/ladder (main's build, stripped). Files go to $OUT.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
if [[ $card == *H200* ]]; then exec bash reports/h200/device-calls/a267.sh; fi
B=$PWD/.device/ladder
mkdir -p $OUT
export LADDER_CACHE_DIR=/tmp/lc-main
L=$OUT/log-269.txt
echo "# Call 269 ($LADDER_COMMIT, a269.sh) on $card, driver $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)" > $L
sweep() {  # $1: tag, $2: ops, $3: dtype, $4: shape, rest: variants (keys joined by '+')
  local tag=$1 ops=$2 dt=$3 shape=$4; shift 4
  for rep in 1 2; do
    for v in "$@"; do
      [ $SECONDS -lt ${END_S:-540} ] || return
      a=""; [ "$v" = auto ] || for kv in ${v//+/ }; do a="$a --variant $kv"; done
      timeout 60 $B bench $ops --dtype $dt --shape $shape --sms 96 $a --json $OUT/v-$tag-$v-$rep.json 2>&1 \
        | grep -E " ladder |rror" | sed "s/^/[$v $rep] /"
    done
    echo "round $rep done at $SECONDS s"
  done
}
{ sweep 2049 "rmsnorm_bwd layernorm_bwd add_rmsnorm_bwd" bf16 8192x2049 auto schedule=regs schedule=phase \
    schedule=phase+phase_items=1 schedule=phase+phase_items=2 schedule=phase+phase_prefetch=0 \
    schedule=phase+phase_prefetch=1 schedule=phase+phase_blocks_per_sm=2 schedule=phase+phase_blocks_per_sm=4 \
    schedule=flat schedule=flat+flat_blocks_per_sm=2 schedule=flat+flat_stages=3 schedule=bulk shift=0 shift=1 \
    reduce=launch pdl=0 weight=none affine=0
  echo "2049 done at $SECONDS s" >> $L
  sweep f32 layernorm_bwd f32 1024x16384 auto schedule=regs schedule=phase schedule=bulk+bulk_cluster=1 \
    schedule=bulk+bulk_cluster=2 schedule=bulk+bulk_pool=1 schedule=bulk+bulk_pool=2 reduce=grid reduce=launch \
    cluster_exchange=barrier pdl=0 affine=0
  sweep wide "rmsnorm_bwd layernorm_bwd" bf16 1024x32768 auto weight=none affine=0
} > $OUT/sweep-bwd-sms96-269.txt 2>&1
python3 - $OUT >> $OUT/sweep-bwd-sms96-269.txt <<'PY'
import glob, json, os, statistics, sys
runs = {}
for f in glob.glob(os.path.join(sys.argv[1], "v-*.json")):
    name = os.path.basename(f)[2:-5].split("-", 1)[1].rsplit("-", 1)[0]
    for r in json.load(open(f))["results"]:
        if r.get("impl") != "ladder": continue
        k = (r["op"], r["dtype"], f"{r['rows']}x{r['d']}")
        runs.setdefault(k, {}).setdefault(name, []).append(r.get("cold_us") if "error" not in r else None)
print("\ncold us per round by plan at --sms 96 (ratio of the mean to auto's)")
for k in sorted(runs):
    a = [x for x in runs[k].get("auto", []) if x]
    base = statistics.mean(a) if a else None
    print(f"## {k[0]} {k[1]} {k[2]}")
    for name, xs in sorted(runs[k].items(), key=lambda kv: (kv[0] != "auto", kv[0])):
        ok = [x for x in xs if x]
        m = statistics.mean(ok) if ok else None
        print(f"  {name:<40} " + "/".join("err" if x is None else f"{x:.2f}" for x in xs)
              + (f" mean {m:.2f} ({m / base:.3f})" if m and base else ""))
PY
(cd $OUT && tar czf /tmp/v.tgz v-*.json && rm -f v-*.json && mv /tmp/v.tgz sweep-bwd-269.tgz)
echo "sweep done at $SECONDS s" >> $L
cat $L; sed -n '/cold us per round/,$p' $OUT/sweep-bwd-sms96-269.txt
echo "total $SECONDS s"
