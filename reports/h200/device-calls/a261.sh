#!/bin/bash
# Call 261: main with the decode kernels' rsqrtf (decode_norm.cuh, patches/decode-rsqrt2.patch) and
# auto holding 16-bit LayerNorm rows of 128 chunks (plan_loop.cpp), after call 260's H100 A/B.
# 1. A/B, three rounds, cold: the decode rows on main's kernels against the tree without the
#    patch (patch -R); LayerNorm d = 1024 under auto (held) against schedule=regs (auto's kernel
#    before, layernorm_fwd<T, 4> two rows a block).
# 2. On an H200: the bench of every default case (the bench of record) and the decode row's peers.
# 3. Every verify rung of rmsnorm, add_rmsnorm and layernorm with the time left.
# Carried: .device/ladder (main's build, stripped). Files go to $OUT.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
B=$PWD/.device/ladder
R=$PWD
left() { local l=$(( $1 - SECONDS )); [ $l -lt 5 ] && l=5; echo $l; }
mkdir -p $OUT /tmp/t-base
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
L=$OUT/log-261.txt
echo "# Call 261 ($LADDER_COMMIT, a261.sh) on $card, driver $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)" > $L
if [ -n "${ONLY_H200:-}" ] && [[ $card != *H200* ]]; then echo "ONLY_H200 set and this is not an H200: nothing run" >> $L; cat $L; exit 0; fi
cp -r kernels /tmp/t-base/ && (cd /tmp/t-base && patch -s -R -p1 < $R/reports/h200/device-calls/patches/decode-rsqrt2.patch) \
  && echo "decode-rsqrt2.patch reversed for the base tree" >> $L || echo "decode-rsqrt2.patch did not reverse" >> $L
declare -A TREE=([base]=/tmp/t-base/kernels [main]=$R/kernels)
{ for rep in $(seq 1 ${AB_ROUNDS:-3}); do
    for t in base main; do
      LADDER_KERNELS_DIR=${TREE[$t]} LADDER_CACHE_DIR=/tmp/lc-$t timeout 60 $B bench rmsnorm add_rmsnorm --dtype bf16 \
        --shape 1x4096 --shape 8x4096 --json $OUT/d-$t-$rep.json 2>&1 | grep -E " ladder |rror" | sed "s/^/$t /"
    done
    for dt in bf16 f16; do
      for v in auto regs; do
        LADDER_CACHE_DIR=/tmp/lc-main timeout 60 $B bench layernorm --dtype $dt --shape 65536x1024 --shape 16384x1024 \
          --variant schedule=$v --json $OUT/l-$v-$dt-$rep.json 2>&1 | grep -E " ladder |rror" | sed "s/^/$v /"
      done
    done
    echo "round $rep done at $SECONDS s"
  done
} > $OUT/bench-261.txt 2>&1
python3 - $OUT >> $OUT/bench-261.txt <<'PY'
import glob, json, os, statistics, sys
out = sys.argv[1]
runs = {}
for f in sorted(glob.glob(os.path.join(out, "[dl]-*.json"))):
    arm = os.path.basename(f).split("-")[1]
    for r in json.load(open(f))["results"]:
        if r.get("impl") != "ladder": continue
        k = (r["op"], r["dtype"], r["rows"], r["d"])
        runs.setdefault(k, {}).setdefault(arm, []).append((r["cold_us"], r.get("cold_clean_us", 0), r["cold_fraction"]))
print("\nop dtype rows x d: cold us per round (fraction), then the mean, for each arm; the change's arm last")
for k in sorted(runs):
    arms = sorted(runs[k], key=lambda a: a in ("main", "auto"))
    parts = []
    for a in arms:
        xs = runs[k][a]
        parts.append(f"{a} " + "/".join(f"{x[0]:.2f}" for x in xs) + " (" + "/".join(f"{x[2]:.3f}" for x in xs)
                     + f") mean {statistics.mean(x[0] for x in xs):.3f}, clean {statistics.mean(x[1] for x in xs):.3f}")
    print(f"{k[0]} {k[1]} {k[2]}x{k[3]}: " + " | ".join(parts))
PY
(cd $OUT && tar czf /tmp/ab.tgz [dl]-*.json && rm -f [dl]-*.json && mv /tmp/ab.tgz ab-261.tgz)
echo "A/B done at $SECONDS s" >> $L
if [[ $card == *H200* ]]; then
  echo "== bench (main, every default case) at $SECONDS s" >> $L
  LADDER_CACHE_DIR=/tmp/lc-main timeout $(left 360) $B bench --json $OUT/bench.json 2>&1 | grep -E "copy ceiling" >> $L
  echo "== peers of the decode row at $SECONDS s" >> $L
  timeout $(left 400) python3 scripts/bench_peers.py --only add_rmsnorm --shape 1x4096 --cache cold \
    --json $OUT/peers-decode-261.json > $OUT/peers-decode-261.txt 2>&1; echo "peers exit $?" >> $L
  # The streamed 16-bit LayerNorm at half auto's block (eight chunks a thread, twice the rows an
  # SM at the same 1536 thread slots): the per-row work (two block sums, the row head, the
  # statistics) spread over twice the elements. Two rounds, cold.
  [ -n "${NO_EXTRAS:-}" ] || { for rep in 1 2; do
      for c in "16384x4096 64" "8192x8192 128" "4096x16384 256"; do
        set -- $c
        for v in "" "--variant schedule=loop --variant loop_threads=$2"; do
          LADDER_CACHE_DIR=/tmp/lc-main timeout 60 $B bench layernorm --dtype bf16 --shape $1 $v 2>&1 \
            | grep -E " ladder |rror" | sed "s/^/[${v:-auto}] /"
        done
      done
    done
  } > $OUT/bench-ln-threads-261.txt 2>&1
  echo "LayerNorm threads done at $SECONDS s" >> $L
fi
if [ -n "${NO_VERIFY:-}" ]; then cat $L; tail -12 $OUT/bench-261.txt; cat $OUT/peers-decode-261.txt 2>/dev/null | tail -5; exit 0; fi
echo "== verify (main: rmsnorm, add_rmsnorm, layernorm, every rung) at $SECONDS s" >> $L
LADDER_CACHE_DIR=/tmp/lc-main timeout $(left ${END_S:-588}) $B verify rmsnorm add_rmsnorm layernorm \
  --jobs 14 --json $OUT/verify-fwd-261.json > $OUT/verify-fwd-261.txt 2>&1
echo "verify exit $? at $SECONDS s" >> $L
grep -E "rungs:" $OUT/verify-fwd-261.txt | tail -1 >> $L
grep -E " FAIL | UNRESOLVED | XPASS " $OUT/verify-fwd-261.txt | head -10 >> $L
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); json.dump(d, open(sys.argv[1],'w'), separators=(',',':'))" \
  $OUT/verify-fwd-261.json 2>/dev/null
cat $L; tail -12 $OUT/bench-261.txt; cat $OUT/peers-decode-261.txt 2>/dev/null | tail -5
echo "total $SECONDS s"
