#!/bin/bash
# Call 250: output stores under the L2 keep policy (patches/keep-stores.patch: every 16-byte
# output store of the forward and backward kernels through norm::store16_keep instead of
# st.global.cs or a plain store), against main, on the target rows that are short, two rounds,
# cold and clean; then main's bench of record. Why: the cold timing starts with the L2 full of
# the flush's dirty lines and ends with the launch's own output lines dirty in it; output kept
# in L2 is output not written back inside the timed launch.
# Carried: .device/ladder (main's build, stripped). Files go to $OUT (at most 8 come back).
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
B=$PWD/.device/ladder
R=$PWD
left() { local l=$(( $1 - SECONDS )); [ $l -lt 5 ] && l=5; echo $l; }
mkdir -p $OUT /tmp/t-ka
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
L=$OUT/log-250.txt
echo "# Call 250 ($LADDER_COMMIT, a250.sh) on $card, driver $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)" > $L
cp -r kernels /tmp/t-ka/ && (cd /tmp/t-ka && patch -s -p1 < $R/reports/h200/device-calls/patches/keep-stores.patch) \
  || echo "keep-stores.patch did not apply" >> $L
declare -A TREE=([main]=$R/kernels [keep]=/tmp/t-ka/kernels)
CASES=(
  "rmsnorm bf16 --shape 8192x8192 --shape 4096x16384 --shape 16384x2049"
  "layernorm bf16 --shape 65536x1024 --shape 8192x8192 --shape 4096x16384 --shape 2048x32768 --shape 16384x2049"
  "add_rmsnorm bf16 --shape 16384x4096 --shape 512x32768 --shape 8192x2049"
  "layernorm f32 --shape 4096x16384"
  "rmsnorm_bwd bf16 --shape 2048x16384 --shape 1024x32768 --shape 8192x2049"
  "layernorm_bwd bf16 --shape 2048x16384 --shape 1024x32768"
  "add_rmsnorm_bwd bf16 --shape 1024x32768 --shape 8192x2049"
)
end_ab=$(( SECONDS + 400 ))
{ for rep in 1 2; do
    for t in main keep; do
      for c in "${CASES[@]}"; do
        [ $SECONDS -lt $end_ab ] || continue
        set -- $c; op=$1; dt=$2; shift 2
        LADDER_KERNELS_DIR=${TREE[$t]} LADDER_CACHE_DIR=/tmp/lc-$t timeout 60 $B bench $op --dtype $dt "$@" \
          --json $OUT/b-$t-$op-$dt-$rep.json 2>&1 | grep -E " ladder |rror" | sed "s/^/$t /"
      done
    done
    echo "round $rep done at $SECONDS s"
  done
} > $OUT/bench-keep-250.txt 2>&1
python3 - $OUT >> $OUT/bench-keep-250.txt <<'PY'
import glob, json, os, statistics, sys
out = sys.argv[1]
runs = {}
for f in glob.glob(os.path.join(out, "b-*.json")):
    tree = os.path.basename(f).split("-")[1]
    for r in json.load(open(f))["results"]:
        if r.get("impl") != "ladder": continue
        k = (r["op"], r["dtype"], r["rows"], r["d"])
        runs.setdefault(k, {}).setdefault(tree, []).append((r["cold_us"], r.get("cold_clean_us", 0), r["cold_fraction"]))
print("\nop dtype rows x d: main cold us (fraction) -> keep cold us (fraction); clean us main -> keep")
for k in sorted(runs):
    m, p = runs[k].get("main", []), runs[k].get("keep", [])
    f = lambda xs, i: "/".join(f"{x[i]:.2f}" for x in xs)
    g = lambda xs: "/".join(f"{x[2]:.3f}" for x in xs)
    print(f"{k[0]} {k[1]} {k[2]}x{k[3]}: {f(m,0)} ({g(m)}) -> {f(p,0)} ({g(p)}); clean {f(m,1)} -> {f(p,1)}")
PY
(cd $OUT && tar czf /tmp/ab.tgz b-*.json && rm -f b-*.json && mv /tmp/ab.tgz ab-250.tgz)
if [[ $card == *H200* ]]; then
  echo "== bench (main, every default case) at $SECONDS s" >> $L
  LADDER_KERNELS_DIR=$R/kernels LADDER_CACHE_DIR=/tmp/lc-main timeout $(left 585) $B bench --json $OUT/bench.json 2>&1 \
    | grep -E "copy ceiling" >> $L
fi
cat $L $OUT/bench-keep-250.txt
echo "total $SECONDS s"
true
