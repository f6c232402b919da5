#!/bin/bash
# Call 272. The one-tile register backward kernels (rmsnorm_bwd, add_rmsnorm_bwd, layernorm_bwd
# with the row held in registers, loaded a row ahead) ask the L2 for the row after that
# (prefetch_row_tile, kBackwardL2AheadRows): at bf16 8192x2049 three 160-thread blocks an SM hold
# one row each in flight, and the row kernels move 1.8-2.0 TB/s of an H100's 3.0 (call 270b).
# 1. A/B, cold, two rounds, four kernel trees: main (.device/kernels-main), pf2 (the checkout:
#    two rows ahead, every one-tile build), pf2s (SHIFTED builds only: the aligned ones stay
#    main's), pf3 (three rows ahead); rmsnorm_bwd and layernorm_bwd at bf16 8192x2049, 16384x4096,
#    65536x1024 and fp32 16384x4096, add_rmsnorm_bwd at bf16 16384x4096 and 65536x1024; on the
#    whole GPU on an H200, at --sms 96 (the stand-in) on an H100.
# 2. Every verify rung of the three backward ops on the checkout's kernels (pf2).
# 3. Nsight Compute (whole GPU, flushed) of the row kernels at bf16 8192x2049, main against pf2.
# Carried: .device/ladder (main's build, stripped), .device/kernels-main. Files go to $OUT, tarred
# at the end but for the summary (the device returns only a few files).
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
END_S=${END_S:-540}
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
B=$PWD/.device/ladder
mkdir -p $OUT /tmp/trees
L=$OUT/log-272.txt
echo "# Call 272 ($LADDER_COMMIT, a272.sh) on $card, driver $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)" > $L
cp -r kernels /tmp/trees/pf2s && sed -i 's/kBackwardL2AheadShiftedOnly = false/kBackwardL2AheadShiftedOnly = true/' /tmp/trees/pf2s/backward_common.cuh
cp -r kernels /tmp/trees/pf3 && sed -i 's/kBackwardL2AheadRows = 2;/kBackwardL2AheadRows = 3;/' /tmp/trees/pf3/backward_common.cuh
grep -c "ShiftedOnly = true" /tmp/trees/pf2s/backward_common.cuh >> $L; grep -c "AheadRows = 3;" /tmp/trees/pf3/backward_common.cuh >> $L
tree_dir() { case $1 in main) echo $PWD/.device/kernels-main;; pf2) echo $PWD/kernels;; *) echo /tmp/trees/$1;; esac; }
S=""; [[ $card == *H200* ]] || S="--sms 96"
{ for rep in 1 2; do
    for tree in main pf2 pf2s pf3; do
      export LADDER_KERNELS_DIR=$(tree_dir $tree) LADDER_CACHE_DIR=/tmp/lc-$tree
      timeout 90 $B bench rmsnorm_bwd layernorm_bwd --dtype bf16 --shape 8192x2049 16384x4096 65536x1024 $S \
        --json $OUT/ab-$tree-bf16-$rep.json 2>&1 | grep -E " ladder |rror" | sed "s/^/[$tree $rep] /"
      timeout 60 $B bench add_rmsnorm_bwd --dtype bf16 --shape 16384x4096 65536x1024 $S \
        --json $OUT/ab-$tree-add-$rep.json 2>&1 | grep -E " ladder |rror" | sed "s/^/[$tree $rep] /"
      timeout 60 $B bench rmsnorm_bwd layernorm_bwd --dtype f32 --shape 16384x4096 $S \
        --json $OUT/ab-$tree-f32-$rep.json 2>&1 | grep -E " ladder |rror" | sed "s/^/[$tree $rep] /"
    done
  done
  unset LADDER_KERNELS_DIR
} > $OUT/ab-272.txt 2>&1
echo "A/B done at $SECONDS s" >> $L
python3 - $OUT > $OUT/ab-272-summary.txt <<'PY'
import glob, json, os, statistics, sys
t = {}
for f in glob.glob(os.path.join(sys.argv[1], "ab-*.json")):
    tree = os.path.basename(f)[3:-5].split("-")[0]
    for r in json.load(open(f))["results"]:
        if r.get("impl") != "ladder" or "error" in r: continue
        k = (r["op"], r["dtype"], f"{r['rows']}x{r['d']}")
        t.setdefault(k, {}).setdefault(tree, []).append(r["cold_us"])
print("cold us per round; ratio of the mean to main's")
for k in sorted(t):
    m = t[k].get("main", [])
    line = f"{' '.join(k):<34}"
    for tree in ("main", "pf2", "pf2s", "pf3"):
        v = t[k].get(tree, [])
        if not v or not m: line += f"  {tree} missing"; continue
        line += f"  {tree} {'/'.join(f'{x:.2f}' for x in v)}"
        if tree != "main": line += f" ({statistics.mean(v) / statistics.mean(m):.3f})"
    print(line)
PY
cat $OUT/ab-272-summary.txt >> $L
export LADDER_CACHE_DIR=/tmp/lc-pf2
timeout 200 $B verify rmsnorm_bwd layernorm_bwd add_rmsnorm_bwd --jobs 14 --json $OUT/verify-bwd-272.json > $OUT/verify-bwd-272.txt 2>&1
echo "verify exit $? at $SECONDS s" >> $L
grep -E "rungs:" $OUT/verify-bwd-272.txt | tail -1 >> $L
grep -E " FAIL | UNRESOLVED | XPASS " $OUT/verify-bwd-272.txt | head -10 >> $L
N=$OUT/ncu-272.txt
for tree in main pf2; do
  [ $(( END_S - SECONDS )) -lt 60 ] && break
  export LADDER_KERNELS_DIR=$(tree_dir $tree) LADDER_CACHE_DIR=/tmp/lc-$tree
  for op in rmsnorm_bwd layernorm_bwd; do
    echo "## $tree $op bf16 8192x2049" >> $N
    timeout 60 ncu --clock-control none --section SpeedOfLight --section Occupancy --section WarpStateStats \
      -k regex:'bwd' --launch-skip 4 --launch-count 2 $B bench $op --dtype bf16 --shape 8192x2049 --iters 2 2>&1 \
      | grep -vE "^==PROF==|^\s*$|^\[" | grep -v " ladder " >> $N
  done
done
unset LADDER_KERNELS_DIR
grep -E "^##|Duration|DRAM Throughput|Memory Throughput|Achieved Occupancy|Warp Cycles Per Issued" $N >> $L
echo "ncu done at $SECONDS s" >> $L
cd $OUT && tar czf /tmp/c.tgz $(ls | grep -vE '^(log-272.txt|ab-272-summary.txt)$') && rm -f $(ls | grep -vE '^(log-272.txt|ab-272-summary.txt)$') \
  && mv /tmp/c.tgz call-272.tgz
cat $OUT/log-272.txt
echo "total $SECONDS s"
