#!/bin/bash
# Call 311 (and later calls by CALL): the streamed and held LayerNorm's first-pass sum by the
# tensor cores (kernels/tensor_sum.cuh, patches/tensor-sum.patch) against the unpacked sum it
# replaces (the same kernels without it), at the 16-bit rows auto gives those
# kernels (16384x4096, 8192x8192, 4096x16384 streamed; 65536x1024 held), bf16 and f16, cold,
# arms interleaved.
# - On an H200: two rounds on the whole GPU, then call 296's program (the bench of record on the
#   checkout's kernels, the decode row's peers, every verify rung until END).
# - On any other card: the patched kernels' LayerNorm verify (every rung, fp32 too), then two
#   rounds under MPS at 70% of the SMs (the H200's SM cycles a byte: the stand-in that reproduces
#   its issue-bound 16-bit LayerNorm, call 265) and one on the whole GPU, then a310.sh's
#   racecheck of the layernorm_bwd rungs call 308 left in flight, until END (default 570).
# Carried: .device/ladder.xz (the checkout's build). Files go to $OUT.
set -u
n=${CALL:-311}
R=$PWD
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
source reports/h200/device-calls/call_env.sh $n
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc-cand
# Both arms' trees: as call 311 ran (e3da396) the checkout had the patch and the unpacked-sum tree
# reversed it; main has not had it since, so a later run applies it for the tensor-core tree.
P=$R/reports/h200/device-calls/patches/tensor-sum.patch
rm -rf /tmp/k-alu /tmp/k-tensor && cp -r kernels /tmp/k-alu && cp -r kernels /tmp/k-tensor
if [ -f kernels/tensor_sum.cuh ]; then
  (cd /tmp/k-alu && patch -s -R -p2 < $P) && echo "tensor-sum.patch reversed for the unpacked-sum tree" >> $L \
    || echo "tensor-sum.patch did not reverse" >> $L
else
  (cd /tmp/k-tensor && patch -s -p2 < $P) && echo "tensor-sum.patch applied for the tensor-core tree" >> $L \
    || echo "tensor-sum.patch did not apply" >> $L
fi
S="--shape 16384x4096 --shape 8192x8192 --shape 4096x16384 --shape 65536x1024"
ab() { # tag rounds
  for rep in $(seq 1 $2); do
    for arm in tensor alu; do
      kd=/tmp/k-$arm
      for dt in bf16 f16; do
        LADDER_KERNELS_DIR=$kd LADDER_CACHE_DIR=/tmp/lc-$arm timeout 90 $B bench layernorm --dtype $dt $S \
          --json $OUT/ab-$1-$arm-$dt-$rep.json 2>&1 | grep -E " ladder |rror" | sed "s/^/[$1 $arm] /"
      done
    done
    echo "$1 round $rep done at $SECONDS s"
  done >> $OUT/ab-$n.txt
  echo "A/B $1 ($2 rounds) done at $SECONDS s" >> $L
}
summary() {
  python3 - $OUT > $OUT/ab-summary-$n.txt <<'PY'
import glob, json, os, statistics, sys
out = sys.argv[1]
runs = {}
for f in glob.glob(os.path.join(out, "ab-*-*-*-*.json")):
    _, tag, arm, dt, rep = os.path.basename(f)[:-5].split("-")
    doc = json.load(open(f))
    for r in doc["results"]:
        if r.get("impl") != "ladder" or "error" in r: continue
        runs.setdefault((tag, dt, f"{r['rows']}x{r['d']}"), {}).setdefault(arm, []).append(
            (r["cold_us"], r.get("fraction_of_ceiling") or r.get("ceiling_fraction")))
print("LayerNorm cold us by round, tensor-core sum against the unpacked sum (ratio tensor/alu)")
for key in sorted(runs):
    arms = runs[key]
    line = f"{key[0]:6s} {key[1]:5s} {key[2]:11s}"
    for arm in ("tensor", "alu"):
        xs = [u for u, _ in arms.get(arm, [])]
        line += f"  {arm} {'/'.join(f'{x:.2f}' for x in xs)}"
    if arms.get("tensor") and arms.get("alu"):
        line += f"  ratio {statistics.mean(u for u, _ in arms['tensor']) / statistics.mean(u for u, _ in arms['alu']):.4f}"
    print(line)
PY
  cat $OUT/ab-summary-$n.txt >> $L
  (cd $OUT && tar czf /tmp/ab.tgz ab-*-*-*-*.json && rm -f ab-*-*-*-*.json && mv /tmp/ab.tgz ab-$n.tgz)
}
if [[ $card == *H200* ]]; then
  ab full 2
  summary
  CALL=${n}b bash reports/h200/device-calls/a296.sh  # its own log (log-${n}b.txt)
  exit 0
fi
LADDER_KERNELS_DIR=/tmp/k-tensor verify_ops verify-ln-$n 150 layernorm
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog
nvidia-cuda-mps-control -d && echo "MPS started" >> $L
CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=70 ab mps70 2
echo quit | nvidia-cuda-mps-control; sleep 2
unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
ab full 1
summary
# What a310.sh racechecks on this card, with the time left.
LADDER_CACHE_DIR=/tmp/lc-san racecheck_ln_bwd_left $n ${END:-570}
cat $L
echo "total $SECONDS s"
