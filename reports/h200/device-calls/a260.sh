#!/bin/bash
# Call 260: the decode kernels' 1/sqrt as rsqrtf (patches/decode-rsqrt1.patch: the block sum as
# before; decode-rsqrt2.patch: with row_group_sum's unrolled butterfly too) against main, cold
# event times in three rounds and Nsight Compute's kernel durations with caches flushed; the
# Triton and torch peers of the decode row in the same call (bench_peers.py --shape 1x4096).
# Then held LayerNorm rows (loop_hold, 40 registers and no spills since stream_block_sum) and
# a few planner alternatives against auto at the short forward rows, two rounds, cold.
# Carried: .device/ladder (main's build, stripped). Files go to $OUT.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
B=$PWD/.device/ladder
R=$PWD
mkdir -p $OUT
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
L=$OUT/log-260.txt
echo "# Call 260 ($LADDER_COMMIT, a260.sh) on $card, driver $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)" > $L
declare -A TREE=([main]=$R/kernels)
for v in 1 2; do
  mkdir -p /tmp/t-d$v && cp -r kernels /tmp/t-d$v/ && (cd /tmp/t-d$v && patch -s -p1 < $R/reports/h200/device-calls/patches/decode-rsqrt$v.patch) \
    && TREE[d$v]=/tmp/t-d$v/kernels && echo "decode-rsqrt$v.patch applied" >> $L || echo "decode-rsqrt$v.patch did not apply" >> $L
done
{ for rep in 1 2 3; do
    for t in main d1 d2; do
      LADDER_KERNELS_DIR=${TREE[$t]} LADDER_CACHE_DIR=/tmp/lc-$t timeout 60 $B bench rmsnorm add_rmsnorm --dtype bf16 \
        --shape 1x4096 --shape 8x4096 --json $OUT/d-$t-$rep.json 2>&1 | grep -E " ladder |rror" | sed "s/^/$t /"
    done
    if [ $rep = 2 ]; then
      timeout 200 python3 scripts/bench_peers.py --only add_rmsnorm --shape 1x4096 --cache cold \
        --json $OUT/peers-decode-260.json 2>&1 | tail -8
    fi
  done
} > $OUT/bench-decode-260.txt 2>&1
echo "decode bench done at $SECONDS s" >> $L
for t in main d1 d2; do for op in rmsnorm add_rmsnorm; do
  echo "## $t $op 1x4096 bf16, --cache-control all: gpu__time_duration of launches 3-10 (ns)"
  LADDER_KERNELS_DIR=${TREE[$t]} LADDER_CACHE_DIR=/tmp/lc-$t timeout 60 ncu --target-processes all --clock-control none \
    --cache-control all --metrics gpu__time_duration.sum --launch-skip 2 --launch-count 8 -k regex:"^${op}_fwd" \
    $B bench $op --dtype bf16 --shape 1x4096 --iters 20 2>&1 | grep gpu__time_duration | awk '{print $NF}' | tr '\n' ' '
  echo
done; done > $OUT/ncu-decode-260.txt 2>&1
echo "ncu done at $SECONDS s" >> $L
# Planner alternatives at the short forward rows: "op dtype shape | variant..." (empty: auto).
ALTS=(
  "layernorm bf16 65536x1024|"
  "layernorm bf16 65536x1024|--variant schedule=loop --variant loop_threads=64 --variant loop_hold=2"
  "layernorm f16 65536x1024|"
  "layernorm f16 65536x1024|--variant schedule=loop --variant loop_threads=64 --variant loop_hold=2"
  "layernorm bf16 16384x4096|"
  "layernorm bf16 16384x4096|--variant schedule=loop --variant loop_hold=4"
  "layernorm f32 4096x16384|"
  "layernorm f32 4096x16384|--variant schedule=loop --variant loop_passes=3"
  "rmsnorm bf16 4096x16384|"
  "rmsnorm bf16 4096x16384|--variant schedule=loop --variant loop_hold=4"
)
{ for rep in 1 2; do
    for a in "${ALTS[@]}"; do
      c=${a%%|*}; v=${a#*|}; set -- $c
      LADDER_CACHE_DIR=/tmp/lc-main timeout 60 $B bench $1 --dtype $2 --shape $3 $v 2>&1 \
        | grep -E " ladder |rror" | sed "s/^/[${v:-auto}] /"
    done
    echo "round $rep done at $SECONDS s"
  done
} > $OUT/bench-alts-260.txt 2>&1
echo "alternatives done at $SECONDS s" >> $L
python3 - $OUT >> $OUT/bench-decode-260.txt <<'PY'
import glob, json, os, statistics, sys
out = sys.argv[1]
runs = {}
for f in sorted(glob.glob(os.path.join(out, "d-*.json"))):
    tree = os.path.basename(f).split("-")[1]
    for r in json.load(open(f))["results"]:
        if r.get("impl") != "ladder": continue
        k = (r["op"], r["rows"], r["d"])
        runs.setdefault(k, {}).setdefault(tree, []).append((r["cold_us"], r.get("cold_clean_us", 0)))
print("\nop rows x d: cold us per round, main | d1 | d2 (mean); clean us means")
for k in sorted(runs):
    parts = []
    for t in ("main", "d1", "d2"):
        xs = runs[k].get(t, [])
        parts.append("/".join(f"{x[0]:.2f}" for x in xs) + (f" ({statistics.mean(x[0] for x in xs):.3f})" if xs else "-")
                     + (f" clean {statistics.mean(x[1] for x in xs):.3f}" if xs else ""))
    print(f"{k[0]} {k[1]}x{k[2]}: " + " | ".join(parts))
PY
(cd $OUT && tar czf /tmp/d.tgz d-*.json && rm -f d-*.json && mv /tmp/d.tgz decode-260.tgz)
cat $L; tail -12 $OUT/bench-decode-260.txt; cat $OUT/ncu-decode-260.txt; cat $OUT/bench-alts-260.txt
echo "total $SECONDS s"
