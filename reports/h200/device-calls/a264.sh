#!/bin/bash
# Call 264: the backward's weight-gradient partial rows pooled over clusters of four blocks
# (bulk_pool=4: a quarter of the partial rows for column_sum to read, against half with two),
# after call 263's H100 profile put the op's loss at bf16 2048x16384 in the reduce (the row
# kernel alone near the copy ceiling, column_sum 6.3 us of the op's 80.7 flushed).
# 1. A/B, two rounds, cold: rmsnorm_bwd, add_rmsnorm_bwd and layernorm_bwd bf16 at 2048x16384
#    and 4096x16384 under auto, bulk_pool=1, 2 and 4.
# 2. Every verify rung of the three ops with bulk_pool=4 (all dtypes).
# 3. Nsight Compute durations of the row kernel and the reduce, flushed, at 2048x16384, pool 2 and 4.
# On an H200 first: the bench of every default case (the bench of record), and after the above
# the decode row's peers and every forward verify rung with the time left.
# ONLY_H200=1: stop at once on any other card. Carried: .device/ladder (main's build, stripped).
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
B=$PWD/.device/ladder
left() { local l=$(( $1 - SECONDS )); [ $l -lt 5 ] && l=5; echo $l; }
mkdir -p $OUT
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
L=$OUT/log-264.txt
echo "# Call 264 ($LADDER_COMMIT, a264.sh) on $card, driver $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)" > $L
if [ -n "${ONLY_H200:-}" ] && [[ $card != *H200* ]]; then echo "ONLY_H200 set and this is not an H200: nothing run" >> $L; cat $L; exit 0; fi
export LADDER_CACHE_DIR=/tmp/lc-main
if [[ $card == *H200* ]]; then
  echo "== bench (main, every default case) at $SECONDS s" >> $L
  timeout $(left 200) $B bench --json $OUT/bench.json > $OUT/bench-264.txt 2>&1; echo "bench exit $? at $SECONDS s" >> $L
  grep -E "copy ceiling" $OUT/bench-264.txt >> $L
fi
echo "== pool A/B at $SECONDS s" >> $L
{ for rep in 1 2; do
    for op in rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd; do
      for v in auto 1 2 4; do
        va=""; [ $v = auto ] || va="--variant schedule=bulk --variant bulk_pool=$v"
        timeout 60 $B bench $op --dtype bf16 --shape 2048x16384 --shape 4096x16384 $va \
          --json $OUT/p-$v-$op-$rep.json 2>&1 | grep -E " ladder |rror" | sed "s/^/[pool $v] /"
      done
    done
    echo "round $rep done at $SECONDS s"
  done
} > $OUT/bench-pool-264.txt 2>&1
python3 - $OUT >> $OUT/bench-pool-264.txt <<'PY'
import glob, json, os, statistics, sys
out = sys.argv[1]
runs = {}
for f in sorted(glob.glob(os.path.join(out, "p-*.json"))):
    arm = "pool " + os.path.basename(f).split("-")[1]
    for r in json.load(open(f))["results"]:
        if r.get("impl") != "ladder" or "error" in r: continue
        k = (r["op"], r["dtype"], r["rows"], r["d"])
        runs.setdefault(k, {}).setdefault(arm, []).append((r["cold_us"], r.get("cold_clean_us", 0), r["cold_fraction"]))
print("\nop dtype rows x d: cold us per round (fraction), then the mean, for each arm")
for k in sorted(runs):
    parts = []
    for a in sorted(runs[k]):
        xs = runs[k][a]
        parts.append(f"{a} " + "/".join(f"{x[0]:.2f}" for x in xs) + " (" + "/".join(f"{x[2]:.3f}" for x in xs)
                     + f") mean {statistics.mean(x[0] for x in xs):.3f}")
    print(f"{k[0]} {k[1]} {k[2]}x{k[3]}: " + " | ".join(parts))
PY
(cd $OUT && tar czf /tmp/p.tgz p-*.json && rm -f p-*.json && mv /tmp/p.tgz pool-264.tgz)
echo "pool A/B done at $SECONDS s" >> $L
echo "== verify: every bulk_pool=4 rung at $SECONDS s" >> $L
$B verify rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd --write-ladder /tmp/vb.json > /dev/null 2>&1
timeout $(left 400) $B run --ladder /tmp/vb.json '*bulk_pool_4*' --jobs 14 --json $OUT/verify-pool4-264.json \
  > $OUT/verify-pool4-264.txt 2>&1; echo "verify exit $? at $SECONDS s" >> $L
grep -E "rungs:" $OUT/verify-pool4-264.txt | tail -1 >> $L
grep -E " FAIL | UNRESOLVED | XPASS " $OUT/verify-pool4-264.txt | head -10 >> $L
{ for v in 2 4; do for op in rmsnorm_bwd layernorm_bwd; do
    echo "## $op bf16 2048x16384 bulk_pool=$v, caches flushed: the row kernel, then the reduce"
    timeout 60 ncu --target-processes all --clock-control none --cache-control all \
      --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum \
      -k regex:"${op}_bulk|column_sum" --launch-skip 4 --launch-count 2 \
      $B bench $op --dtype bf16 --iters 3 --shape 2048x16384 --variant schedule=bulk --variant bulk_pool=$v 2>&1 \
      | grep -E "^ +[a-z]" | grep -v "^==PROF=="
  done; done
} > $OUT/ncu-pool-264.txt 2>&1
echo "ncu done at $SECONDS s" >> $L
if [[ $card == *H200* ]]; then
  echo "== peers of the decode row at $SECONDS s" >> $L
  timeout $(left 330) python3 scripts/bench_peers.py --only add_rmsnorm --shape 1x4096 --cache cold \
    --json $OUT/peers-decode-264.json > $OUT/peers-decode-264.txt 2>&1; echo "peers exit $? at $SECONDS s" >> $L
  echo "== verify (main: rmsnorm, add_rmsnorm, layernorm, every rung) at $SECONDS s" >> $L
  timeout $(left ${END_S:-588}) $B verify rmsnorm add_rmsnorm layernorm \
    --jobs 14 --json $OUT/verify-fwd-264.json > $OUT/verify-fwd-264.txt 2>&1
  echo "verify exit $? at $SECONDS s" >> $L
  grep -E "rungs:" $OUT/verify-fwd-264.txt | tail -1 >> $L
  grep -E " FAIL | UNRESOLVED | XPASS " $OUT/verify-fwd-264.txt | head -10 >> $L
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); json.dump(d, open(sys.argv[1],'w'), separators=(',',':'))" \
    $OUT/verify-fwd-264.json 2>/dev/null
fi
cat $L; tail -8 $OUT/bench-pool-264.txt; grep -E "##|duration" $OUT/ncu-pool-264.txt
echo "total $SECONDS s"
