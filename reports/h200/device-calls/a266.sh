#!/bin/bash
# Call 266: `ladder bench --sms`, the green-context stand-in for the H200 (commits c2c0553, 09ede72), on an
# H100, against MPS's 70% of call 265. 1. LayerNorm and RMSNorm bf16 at the four d = 1024-16384
# target rows on the whole GPU, then --sms 92 (rounded up to 96: 0.73 of 132) and --sms 88, two
# rounds, cold; 2. the backward at bf16 2048x16384 under --sms 96, whose bulk plans size their
# grids to the green context's SMs; 3. what --sms 200 and --sms 4 say.
# Carried: .device/ladder (main's build, stripped). Files go to $OUT.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
B=$PWD/.device/ladder
mkdir -p $OUT
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
L=$OUT/log-266.txt
echo "# Call 266 ($LADDER_COMMIT, a266.sh) on $card" > $L
export LADDER_CACHE_DIR=/tmp/lc-main
S="--shape 4096x16384 --shape 8192x8192 --shape 16384x4096 --shape 65536x1024"
{ for rep in 1 2; do
    for sms in 0 92 88; do
      a=""; [ $sms = 0 ] || a="--sms $sms"
      timeout 90 $B bench layernorm rmsnorm --dtype bf16 $S $a --json $OUT/g-$sms-$rep.json 2>&1 \
        | grep -E " ladder |rror|ceiling|timed on" | sed "s/^/[sms $sms] /"
    done
    echo "round $rep done at $SECONDS s"
  done
  timeout 90 $B bench rmsnorm_bwd layernorm_bwd --dtype bf16 --shape 2048x16384 --sms 96 --json $OUT/g-bwd.json 2>&1 \
    | grep -E " ladder |rror|ceiling|timed on" | sed "s/^/[bwd sms 96] /"
  python3 -c "import json; d=json.load(open('$OUT/g-bwd.json')); print('toolchain', d.get('toolchain')); [print(r['op'], [(k.get('entry'), k.get('grid_blocks'), k.get('waves')) for k in r.get('kernels', [])]) for r in d['results'] if r.get('impl')=='ladder']" 2>&1 | head
  for sms in 200 4; do echo "## --sms $sms"; timeout 60 $B bench rmsnorm --dtype bf16 --shape 64x1024 --sms $sms 2>&1 | tail -2; echo "exit ${PIPESTATUS[0]}"; done
} > $OUT/bench-sms-266.txt 2>&1
python3 - $OUT >> $OUT/bench-sms-266.txt <<'PY'
import glob, json, os, statistics, sys
out = sys.argv[1]
runs = {}
for f in glob.glob(os.path.join(out, "g-[0-9]*-[0-9].json")):
    _, sms, rep = os.path.basename(f)[:-5].split("-")
    d = json.load(open(f))
    for r in d["results"]:
        if r.get("impl") != "ladder" or "error" in r: continue
        runs.setdefault((r["op"], f"{r['rows']}x{r['d']}"), {}).setdefault(int(sms), []).append((r["cold_us"], r["cold_fraction"]))
print("\ncold us per round (fraction of the same run's copy ceiling) by --sms (0: the whole GPU)")
for k in sorted(runs):
    print(f"{k[0]} bf16 {k[1]}: " + " | ".join(
        f"sms {s} " + "/".join(f"{x[0]:.2f} ({x[1]:.3f})" for x in runs[k][s]) for s in sorted(runs[k])))
PY
(cd $OUT && tar czf /tmp/g.tgz g-*.json && rm -f g-*.json && mv /tmp/g.tgz sms-266.tgz)
cat $L; cat $OUT/bench-sms-266.txt | tail -40
echo "total $SECONDS s"
