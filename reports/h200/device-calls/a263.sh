#!/bin/bash
# Call 263: main as stop 56 left it (the decode kernels' rsqrtf, auto holding 16-bit LayerNorm rows
# of 128 chunks), on whatever card comes.
# On an H200: 1. the bench of every default case (the bench of record) and the decode row's peers;
#   2. the A/B of stop 56's two changes (call 261's, which ran only on an H100);
#   3. the backward's row-count diagnostic (below); 4. every forward verify rung with the time left.
# On an H100: only 3, then Nsight Compute's stall reasons of the backward's row kernels at
#   bf16 2048x16384.
# The row-count diagnostic: the bulk backward kernels give each of the 132 SMs' blocks rows
# blockIdx.x, + 132, ...; at 2048 rows 68 blocks take 16 rows and 64 take 15. Timing 1980 rows
# (15 each), 2048 and 2112 (16 each) tells whether the op's time follows the bytes (1980 : 2048 :
# 2112 = 0.967 : 1 : 1.031, DRAM-bound) or the most rows a block (0.9375 : 1 : 1, each SM bound
# by its own row latency), likewise 990/1024/1056 rows at d = 32768 (66 clusters of 2).
# ONLY_H200=1: stop at once on any other card; NO_AB, NO_ROWS: leave out the A/B and the
# row-count diagnostic. Carried: .device/ladder (main's build, stripped). Files go to $OUT.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
B=$PWD/.device/ladder
R=$PWD
left() { local l=$(( $1 - SECONDS )); [ $l -lt 5 ] && l=5; echo $l; }
mkdir -p $OUT /tmp/t-base
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
L=$OUT/log-263.txt
echo "# Call 263 ($LADDER_COMMIT, a263.sh) on $card, driver $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)" > $L
export LADDER_CACHE_DIR=/tmp/lc-main
if [ -n "${ONLY_H200:-}" ] && [[ $card != *H200* ]]; then echo "ONLY_H200 set and this is not an H200: nothing run" >> $L; cat $L; exit 0; fi
if [[ $card == *H200* ]]; then
  echo "== bench (main, every default case) at $SECONDS s" >> $L
  timeout $(left 200) $B bench --json $OUT/bench.json > $OUT/bench-263.txt 2>&1; echo "bench exit $?" >> $L
  grep -E "copy ceiling" $OUT/bench-263.txt >> $L
  echo "== peers of the decode row at $SECONDS s" >> $L
  timeout $(left 260) python3 scripts/bench_peers.py --only add_rmsnorm --shape 1x4096 --cache cold \
    --json $OUT/peers-decode-263.json > $OUT/peers-decode-263.txt 2>&1; echo "peers exit $? at $SECONDS s" >> $L
  [ -n "${NO_AB:-}" ] || {
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
          timeout 60 $B bench layernorm --dtype $dt --shape 65536x1024 --shape 16384x1024 \
            --variant schedule=$v --json $OUT/l-$v-$dt-$rep.json 2>&1 | grep -E " ladder |rror" | sed "s/^/$v /"
        done
      done
      echo "round $rep done at $SECONDS s"
    done
  } > $OUT/bench-ab-263.txt 2>&1
  python3 - $OUT >> $OUT/bench-ab-263.txt <<'PY'
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
  (cd $OUT && tar czf /tmp/ab.tgz [dl]-*.json && rm -f [dl]-*.json && mv /tmp/ab.tgz ab-263.tgz)
  echo "A/B done at $SECONDS s" >> $L
  }
fi
[ -n "${NO_ROWS:-}" ] || {
echo "== backward row-count diagnostic at $SECONDS s" >> $L
{ for rep in 1 2; do
    timeout 90 $B bench rmsnorm_bwd layernorm_bwd add_rmsnorm_bwd --dtype bf16 \
      --shape 1980x16384 --shape 2048x16384 --shape 2112x16384 \
      --shape 990x32768 --shape 1024x32768 --shape 1056x32768 2>&1 | grep -E " ladder |rror|ceiling"
  done
} > $OUT/bench-rows-263.txt 2>&1
echo "rows done at $SECONDS s" >> $L
}
if [[ $card != *H200* ]]; then
  RM=smsp__average_warp_latency_issue_stalled
  M=gpu__time_duration.sum,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed
  for s in barrier long_scoreboard short_scoreboard lg_throttle mio_throttle math_pipe_throttle not_selected selected wait dispatch_stall no_instruction branch_resolving drain membar sleeping misc; do
    M=$M,${RM}_$s.ratio
  done
  { for op in rmsnorm_bwd layernorm_bwd; do for sh in 2048x16384 1980x16384; do
      echo "## $op bf16 $sh (auto), caches flushed: the row kernel, then the column reduce"
      timeout $(left 500) ncu --target-processes all --clock-control none --cache-control all --metrics $M \
        -k regex:"${op}_bulk|column_sum" --launch-skip 4 --launch-count 2 \
        $B bench $op --dtype bf16 --iters 3 --shape $sh 2>&1 | grep -E "^ +[a-z]|^  [a-z].*\(" | grep -v "^==PROF=="
    done; done
  } > $OUT/ncu-bwd-263.txt 2>&1
  echo "ncu done at $SECONDS s" >> $L
fi
if [[ $card == *H200* ]] && [ -z "${NO_VERIFY:-}" ]; then
  echo "== verify (main: rmsnorm, add_rmsnorm, layernorm, every rung) at $SECONDS s" >> $L
  timeout $(left ${END_S:-588}) $B verify rmsnorm add_rmsnorm layernorm \
    --jobs 14 --json $OUT/verify-fwd-263.json > $OUT/verify-fwd-263.txt 2>&1
  echo "verify exit $? at $SECONDS s" >> $L
  grep -E "rungs:" $OUT/verify-fwd-263.txt | tail -1 >> $L
  grep -E " FAIL | UNRESOLVED | XPASS " $OUT/verify-fwd-263.txt | head -10 >> $L
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); json.dump(d, open(sys.argv[1],'w'), separators=(',',':'))" \
    $OUT/verify-fwd-263.json 2>/dev/null
fi
cat $L; tail -14 $OUT/bench-ab-263.txt 2>/dev/null; cat $OUT/bench-rows-263.txt 2>/dev/null; cat $OUT/ncu-bwd-263.txt 2>/dev/null | grep -E "##|duration|dram__th|issue_active"
echo "total $SECONDS s"
