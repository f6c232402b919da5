#!/bin/bash
# Call 258: patches/stream-norm.patch (the streamed kernels' block sum with the block's shape a
# constant, norm::stream_block_sum, in 16-bit LayerNorm, RMSNorm and add_rmsnorm and the held
# rows; RMSNorm's and add_rmsnorm's streamed rows' 1/sqrt as rsqrtf, norm::stream_inv_rms; fp32
# LayerNorm keeps row_group_sum, call 257's H100 A/B having lost 1.5% there to ptxas's
# registers) against main.
# On an H200: the A/B, two rounds, cold and clean, then the bench of every default case on the
# patched tree, then every verify rung of the three forward ops on it with the time left.
# On another card only the verify runs (call 257 timed these trees on an H100).
# Carried: .device/ladder (main's build, stripped). Files go to $OUT.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
B=$PWD/.device/ladder
R=$PWD
left() { local l=$(( $1 - SECONDS )); [ $l -lt 5 ] && l=5; echo $l; }
mkdir -p $OUT /tmp/t-cand
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
L=$OUT/log-258.txt
echo "# Call 258 ($LADDER_COMMIT, a258.sh) on $card, driver $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)" > $L
cp -r kernels /tmp/t-cand/ && (cd /tmp/t-cand && patch -s -p1 < $R/reports/h200/device-calls/patches/stream-norm.patch) \
  && echo "stream-norm.patch applied" >> $L || echo "stream-norm.patch did not apply" >> $L
declare -A TREE=([main]=$R/kernels [cand]=/tmp/t-cand/kernels)
CASES=(
  "layernorm bf16 --shape 16384x4096 --shape 8192x8192 --shape 4096x16384"
  "layernorm f16 --shape 4096x16384"
  "layernorm f32 --shape 16384x4096 --shape 4096x16384"
  "rmsnorm bf16 --shape 16384x4096 --shape 8192x8192 --shape 4096x16384 --shape 2048x32768 --shape 65536x1024"
  "add_rmsnorm bf16 --shape 16384x4096 --shape 4096x16384"
)
if [[ $card == *H200* ]]; then
  end_ab=$(( SECONDS + ${AB_S:-150} ))
  { for rep in 1 2; do
      for c in "${CASES[@]}"; do
        for t in main cand; do
          [ $SECONDS -lt $end_ab ] || continue
          set -- $c; op=$1; dt=$2; shift 2
          LADDER_KERNELS_DIR=${TREE[$t]} LADDER_CACHE_DIR=/tmp/lc-$t timeout 60 $B bench $op --dtype $dt "$@" \
            --json $OUT/b-$t-$op-$dt-$rep.json 2>&1 | grep -E " ladder |rror" | sed "s/^/$t /"
        done
      done
      echo "round $rep done at $SECONDS s"
    done
  } > $OUT/bench-stream-258.txt 2>&1
  python3 - $OUT >> $OUT/bench-stream-258.txt <<'PY'
import glob, json, os, statistics, sys
out = sys.argv[1]
runs = {}
for f in glob.glob(os.path.join(out, "b-*.json")):
    tree = os.path.basename(f).split("-")[1]
    for r in json.load(open(f))["results"]:
        if r.get("impl") != "ladder": continue
        k = (r["op"], r["dtype"], r["rows"], r["d"])
        runs.setdefault(k, {}).setdefault(tree, []).append((r["cold_us"], r.get("cold_clean_us", 0), r["cold_fraction"]))
print("\nop dtype rows x d: cold us (fraction) main -> cand; clean us main -> cand")
ratios = []
for k in sorted(runs):
    m, c = runs[k].get("main", []), runs[k].get("cand", [])
    f = lambda xs, i: "/".join(f"{x[i]:.2f}" for x in xs) or "-"
    g = lambda xs: "/".join(f"{x[2]:.3f}" for x in xs) or "-"
    print(f"{k[0]} {k[1]} {k[2]}x{k[3]}: {f(m,0)} ({g(m)}) -> {f(c,0)} ({g(c)}); clean {f(m,1)} -> {f(c,1)}")
    if m and c:
        ratios.append(statistics.mean(x[0] for x in c) / statistics.mean(x[0] for x in m))
if ratios:
    print(f"cand / main, cold, mean over {len(ratios)} rows: {statistics.mean(ratios):.4f}; faster on "
          f"{sum(r < 1 for r in ratios)} of {len(ratios)}; slowest row {max(ratios):.4f}")
PY
  (cd $OUT && tar czf /tmp/ab.tgz b-*.json && rm -f b-*.json && mv /tmp/ab.tgz ab-258.tgz)
  echo "== bench (cand, every default case) at $SECONDS s" >> $L
  LADDER_KERNELS_DIR=/tmp/t-cand/kernels LADDER_CACHE_DIR=/tmp/lc-cand timeout $(left 330) $B bench --json $OUT/bench.json 2>&1 \
    | grep -E "copy ceiling" >> $L
fi
echo "== verify (cand: rmsnorm, add_rmsnorm, layernorm, every rung) at $SECONDS s" >> $L
LADDER_KERNELS_DIR=/tmp/t-cand/kernels LADDER_CACHE_DIR=/tmp/lc-cand timeout $(left ${END_S:-585}) $B verify rmsnorm add_rmsnorm layernorm \
  --jobs 14 --json $OUT/verify-fwd-258.json > $OUT/verify-fwd-258.txt 2>&1
echo "verify exit $? at $SECONDS s" >> $L
grep -E "rungs:" $OUT/verify-fwd-258.txt | tail -1 >> $L
grep -E " FAIL | UNRESOLVED | XPASS " $OUT/verify-fwd-258.txt | head -10 >> $L
gzip $OUT/verify-fwd-258.json 2>/dev/null
cat $L $OUT/bench-stream-258.txt 2>/dev/null | tail -40
echo "total $SECONDS s"
true
