#!/bin/bash
# Call 265: the 16-bit LayerNorm's plans on an H100 with its SMs cut to those an H200 has for
# the same bytes. The H200 moves 1.43x the H100's bytes with the same 132 SMs at the same clock,
# so it leaves each SM 0.70x the cycles a byte. MPS's active thread percentage limits a client to
# that share of the SMs; at 70% call 264's H100 moved LayerNorm bf16 4096x16384 from 0.948 to
# 0.925 of its copy ceiling while RMSNorm stayed at 0.95-0.97 (the H200's pattern: 0.894 against
# 0.927, call 258), and at 60% to 0.887.
# 1. Every LayerNorm bf16 plan the planner offers at the four d = 1024-16384 target rows, and
#    RMSNorm's auto, two rounds, cold, at MPS 70%.
# 2. The same at 100% (no MPS), one round, for the proxy's own ordering against the full card.
# Carried: .device/ladder (main's build, stripped). Files go to $OUT.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
B=$PWD/.device/ladder
mkdir -p $OUT /tmp/mps /tmp/mpslog
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
L=$OUT/log-265.txt
echo "# Call 265 ($LADDER_COMMIT, a265.sh) on $card" > $L
export LADDER_CACHE_DIR=/tmp/lc-main CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
S="--shape 4096x16384 --shape 8192x8192 --shape 16384x4096 --shape 65536x1024"
VARIANTS=("auto" "schedule=loop loop_threads=128" "schedule=loop loop_threads=256" "schedule=loop loop_threads=512"
  "schedule=loop loop_threads=1024" "schedule=loop loop_passes=2" "schedule=loop loop_passes=3" "schedule=loop loop_hold=2"
  "schedule=loop loop_hold=4" "schedule=loop loop_grid=resident" "schedule=bulk" "schedule=regs" "rmsnorm")
sweep() { # tag rounds
  for rep in $(seq 1 $2); do
    for i in "${!VARIANTS[@]}"; do
      v=${VARIANTS[$i]}; op=layernorm; args=""
      if [ "$v" = rmsnorm ]; then op=rmsnorm; elif [ "$v" != auto ]; then for kv in $v; do args="$args --variant $kv"; done; fi
      timeout 60 $B bench $op --dtype bf16 $S $args --json $OUT/s-$1-$i-$rep.json 2>&1 | grep -E " ladder |rror" | sed "s/^/[$1 $v] /"
    done
    echo "$1 round $rep done at $SECONDS s"
  done
}
nvidia-cuda-mps-control -d && echo "MPS started" >> $L
CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=70 sweep mps70 2 > $OUT/sweep-mps70-265.txt 2>&1
echo quit | nvidia-cuda-mps-control; sleep 1
echo "MPS sweep done at $SECONDS s" >> $L
sweep full 1 > $OUT/sweep-full-265.txt 2>&1
echo "full sweep done at $SECONDS s" >> $L
python3 - $OUT "${VARIANTS[@]}" > $OUT/sweep-265.txt <<'PY'
import glob, json, os, statistics, sys
out, names = sys.argv[1], sys.argv[2:]
runs = {}
for f in glob.glob(os.path.join(out, "s-*.json")):
    _, tag, i, rep = os.path.basename(f)[:-5].split("-")
    for r in json.load(open(f))["results"]:
        if r.get("impl") != "ladder" or "error" in r: continue
        runs.setdefault((tag, f"{r['rows']}x{r['d']}"), {}).setdefault(int(i), []).append(r["cold_us"])
print("cold us, mean over rounds (ratio to LayerNorm auto), per plan; MPS 70% then the full card")
for key in sorted(runs, key=lambda k: (k[0] != "mps70", k[1])):
    arms = runs[key]
    base = statistics.mean(arms[0]) if 0 in arms else None
    print(f"\n## {key[0]} {key[1]}")
    for i in sorted(arms):
        m = statistics.mean(arms[i])
        rel = f" ({m / base:.3f})" if base else ""
        print(f"  {names[i]:40s} {'/'.join(f'{x:.2f}' for x in arms[i])} mean {m:.2f}{rel}")
PY
(cd $OUT && tar czf /tmp/s.tgz s-*.json && rm -f s-*.json && mv /tmp/s.tgz sweep-265.tgz)
cat $L; cat $OUT/sweep-265.txt; grep -c rror $OUT/sweep-mps70-265.txt
echo "total $SECONDS s"
