#!/bin/bash
# Call 257: the streamed kernels' per-row overhead, against main, two rounds, cold and clean.
# - sum: patches/stream-sum.patch, norm::stream_block_sum (stream_row.cuh) for the streamed and
#   held rows' block sums: row_group_sum's result bit for bit, with the block's shape a constant
#   (about 30 instructions a sum a thread where row_group_sum took about 65, ptxas sm_90 SASS).
# - both: sum plus patches/stream-rsqrt.patch, RMSNorm's per-row 1/sqrt as rsqrtf of the mean
#   (norm::stream_inv_rms: about 3 instructions a row where the IEEE forms took about 35).
# LayerNorm's rows are the same code in sum and both, so they are timed on main and both only,
# and on both with two passes (p2: loop_passes=2, the shifted one-read statistics, which lost to
# three passes before the block sum changed; ptxas gives both trees' two-pass bf16 body 16
# bytes of spills at 40 registers).
# Then, when both is faster on the rows' mean, the bench of every default case on it.
# Carried: .device/ladder (main's build, stripped). Files go to $OUT.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
B=$PWD/.device/ladder
R=$PWD
left() { local l=$(( $1 - SECONDS )); [ $l -lt 5 ] && l=5; echo $l; }
mkdir -p $OUT /tmp/t-sum /tmp/t-both
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
L=$OUT/log-257.txt
echo "# Call 257 ($LADDER_COMMIT, a257.sh) on $card, driver $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)" > $L
cp -r kernels /tmp/t-sum/ && (cd /tmp/t-sum && patch -s -p1 < $R/reports/h200/device-calls/patches/stream-sum.patch) \
  && echo "stream-sum.patch applied" >> $L || echo "stream-sum.patch did not apply" >> $L
cp -r /tmp/t-sum/kernels /tmp/t-both/ && (cd /tmp/t-both && patch -s -p1 < $R/reports/h200/device-calls/patches/stream-rsqrt.patch) \
  && echo "stream-rsqrt.patch applied" >> $L || echo "stream-rsqrt.patch did not apply" >> $L
declare -A TREE=([main]=$R/kernels [sum]=/tmp/t-sum/kernels [both]=/tmp/t-both/kernels [p2]=/tmp/t-both/kernels)
CASES=(
  "main sum both|rmsnorm bf16 --shape 16384x4096 --shape 8192x8192 --shape 4096x16384 --shape 2048x32768 --shape 65536x1024"
  "main sum both|add_rmsnorm bf16 --shape 16384x4096 --shape 4096x16384"
  "main sum both|rmsnorm f32 --shape 16384x4096"
  "main both|layernorm bf16 --shape 16384x4096 --shape 8192x8192 --shape 4096x16384"
  "main both|layernorm f32 --shape 16384x4096 --shape 4096x16384"
  "p2|layernorm bf16 --shape 16384x4096 --shape 8192x8192 --shape 4096x16384 --variant schedule=loop --variant loop_passes=2"
)
end_ab=$(( SECONDS + ${AB_S:-330} ))
{ for rep in 1 2; do
    for c in "${CASES[@]}"; do
      trees=${c%%|*}; args=${c#*|}
      for t in $trees; do
        [ $SECONDS -lt $end_ab ] || continue
        set -- $args; op=$1; dt=$2; shift 2
        LADDER_KERNELS_DIR=${TREE[$t]} LADDER_CACHE_DIR=/tmp/lc-$t timeout 60 $B bench $op --dtype $dt "$@" \
          --json $OUT/b-$t-$op-$dt-$rep.json 2>&1 | grep -E " ladder |rror" | sed "s/^/$t /"
      done
    done
    echo "round $rep done at $SECONDS s"
  done
} > $OUT/bench-stream-257.txt 2>&1
python3 - $OUT >> $OUT/bench-stream-257.txt <<'PY'
import glob, json, os, statistics, sys
out = sys.argv[1]
runs = {}
for f in glob.glob(os.path.join(out, "b-*.json")):
    tree = os.path.basename(f).split("-")[1]
    for r in json.load(open(f))["results"]:
        if r.get("impl") != "ladder": continue
        k = (r["op"], r["dtype"], r["rows"], r["d"])
        runs.setdefault(k, {}).setdefault(tree, []).append((r["cold_us"], r.get("cold_clean_us", 0), r["cold_fraction"]))
order = ["main", "sum", "both", "p2"]
print("\nop dtype rows x d: cold us (fraction) for each tree; clean us for each tree")
ratios = []
for k in sorted(runs):
    t = runs[k]
    f = lambda xs, i: "/".join(f"{x[i]:.2f}" for x in xs) or "-"
    g = lambda xs: "/".join(f"{x[2]:.3f}" for x in xs) or "-"
    m, b = t.get("main", []), t.get("both", [])
    have = [o for o in order if o in t]
    print(f"{k[0]} {k[1]} {k[2]}x{k[3]}: " + " -> ".join(f"{o} {f(t[o],0)} ({g(t[o])})" for o in have)
          + "; clean " + " -> ".join(f"{o} {f(t[o],1)}" for o in have))
    if m and b:
        ratios.append(statistics.mean(x[0] for x in b) / statistics.mean(x[0] for x in m))
if ratios:
    mean = statistics.mean(ratios)
    print(f"both / main, cold, mean over {len(ratios)} rows: {mean:.4f}; faster on "
          f"{sum(r < 1 for r in ratios)} of {len(ratios)}")
    open(os.path.join(out, "verdict"), "w").write("faster" if mean < 0.995 else "not faster")
PY
(cd $OUT && tar czf /tmp/ab.tgz b-*.json && rm -f b-*.json && mv /tmp/ab.tgz ab-257.tgz)
if [[ $card == *H200* ]] && [ "$(cat $OUT/verdict 2>/dev/null)" = faster ]; then
  echo "== bench (both, every default case) at $SECONDS s" >> $L
  LADDER_KERNELS_DIR=/tmp/t-both/kernels LADDER_CACHE_DIR=/tmp/lc-both timeout $(left 585) $B bench --json $OUT/bench.json 2>&1 \
    | grep -E "copy ceiling" >> $L
fi
cat $L $OUT/bench-stream-257.txt
echo "total $SECONDS s"
true
