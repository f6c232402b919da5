#!/bin/bash
# Call 273. After call 272 (layernorm_bwd's 16-bit one-tile builds on the 16-byte grid gained
# 4-8% from an L2 request for the row after next; every other build lost or held):
# 1. layernorm_bwd f16 at 16384x4096 and 65536x1024, main's kernels against the checkout's
#    (the L2 request in the 16-bit builds on the grid; call 272 timed bf16 only).
# 2. rmsnorm_bwd bf16 at 8192x2049, 16384x4096 and 65536x1024: the checkout's kernels (its
#    rmsnorm_bwd is main's) against `early` (the next row's loads issued at the top of the row,
#    before pass 1, as layernorm_bwd issues them) and `earlypf` (early, and the L2 request for
#    the row after next in the builds on the grid).
# 3. The rows of 2049 at four 160-thread blocks an SM: `lb4` (rmsnorm_bwd and layernorm_bwd
#    built with __launch_bounds__(160, 4): 96 registers, 88-112 bytes spilled) under
#    .device/ladder-640 (main's planner with 640 backward thread slots an SM), items=2, against
#    the checkout's kernels under main's planner.
# Cold, two rounds; the whole GPU on an H200, --sms 96 (the stand-in) on an H100.
# Carried: .device/ladder.xz (main's build), .device/ladder-640.xz, .device/kernels-main; the trees
# early, earlypf and lb4 are made here from the checkout's kernels. Files go to $OUT, tarred but for the log and summary.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
B=$PWD/.device/ladder
mkdir -p $OUT
L=$OUT/log-273.txt
echo "# Call 273 ($LADDER_COMMIT, a273.sh) on $card, driver $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)" > $L
for b in ladder ladder-640; do python3 -c "import lzma,sys; open(sys.argv[2],'wb').write(lzma.open(sys.argv[1]).read())" .device/$b.xz .device/$b; done
chmod +x .device/ladder-640 .device/ladder
mkdir -p .device/trees && for t in early earlypf lb4; do rm -rf .device/trees/$t; cp -r kernels .device/trees/$t; done
sed -i 's/kRmsEarlyLoad = false/kRmsEarlyLoad = true/' .device/trees/early/rmsnorm_bwd.cuh .device/trees/earlypf/rmsnorm_bwd.cuh
sed -i 's/kRmsL2Ahead = false/kRmsL2Ahead = true/' .device/trees/earlypf/rmsnorm_bwd.cuh
perl -0pi -e 's/__launch_bounds__\(norm::kBackwardMaxThreads\)\n    rmsnorm_bwd\(/__launch_bounds__(160, 4)\n    rmsnorm_bwd(/' .device/trees/lb4/rmsnorm_bwd.cuh
perl -0pi -e 's/__launch_bounds__\(norm::kBackwardMaxThreads\)\n    layernorm_bwd\(/__launch_bounds__(160, 4)\n    layernorm_bwd(/' .device/trees/lb4/layernorm_bwd.cuh
grep -c "kRmsEarlyLoad = true, kRmsL2Ahead = true" .device/trees/earlypf/rmsnorm_bwd.cuh >> $L
grep -c "160, 4" .device/trees/lb4/rmsnorm_bwd.cuh .device/trees/lb4/layernorm_bwd.cuh >> $L
tree_dir() { case $1 in main) echo $PWD/.device/kernels-main;; cand) echo $PWD/kernels;; *) echo $PWD/.device/trees/$1;; esac; }
S=""; [[ $card == *H200* ]] || S="--sms 96"
bench() {  # tree tag binary args...
  local tree=$1 tag=$2 bin=$3; shift 3
  LADDER_KERNELS_DIR=$(tree_dir $tree) LADDER_CACHE_DIR=/tmp/lc-$tree timeout 90 $bin bench "$@" $S \
    --json $OUT/ab-$tag-$tree-$rep.json 2>&1 | grep -E " ladder |rror" | sed "s/^/[$tag $tree $rep] /"
}
{ for rep in 1 2; do
    for tree in main cand; do bench $tree f16 $B layernorm_bwd --dtype f16 --shape 16384x4096 65536x1024; done
    for tree in cand early earlypf; do bench $tree rms $B rmsnorm_bwd --dtype bf16 --shape 8192x2049 16384x4096 65536x1024; done
    bench cand lb $B rmsnorm_bwd layernorm_bwd --dtype bf16 --shape 8192x2049
    bench lb4 lb $PWD/.device/ladder-640 rmsnorm_bwd layernorm_bwd --dtype bf16 --shape 8192x2049 --variant items=2
  done
} > $OUT/ab-273.txt 2>&1
echo "A/B done at $SECONDS s" >> $L
python3 - $OUT > $OUT/ab-273-summary.txt <<'PY'
import glob, json, os, statistics, sys
t = {}
for f in glob.glob(os.path.join(sys.argv[1], "ab-*.json")):
    tag, tree, rep = os.path.basename(f)[3:-5].split("-")
    for r in json.load(open(f))["results"]:
        if r.get("impl") != "ladder" or "error" in r: continue
        k = (tag, r["op"], r["dtype"], f"{r['rows']}x{r['d']}")
        t.setdefault(k, {}).setdefault(tree, []).append(r["cold_us"])
print("cold us per round; ratio of the mean to the first tree's (main, or cand where main is absent)")
for k in sorted(t):
    trees = [x for x in ("main", "cand", "early", "earlypf", "lb4") if x in t[k]]
    base = statistics.mean(t[k][trees[0]])
    line = f"{' '.join(k):<40}"
    for tree in trees:
        v = t[k][tree]
        line += f"  {tree} {'/'.join(f'{x:.2f}' for x in v)} ({statistics.mean(v) / base:.3f})"
    print(line)
PY
cat $OUT/ab-273-summary.txt >> $L
cd $OUT && tar czf /tmp/c.tgz $(ls | grep -vE '^(log-273.txt|ab-273-summary.txt)$') && rm -f $(ls | grep -vE '^(log-273.txt|ab-273-summary.txt)$') \
  && mv /tmp/c.tgz call-273.tgz
cat $OUT/log-273.txt
echo "total $SECONDS s"
