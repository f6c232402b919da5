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
# ab TAG ROUNDS: each arm's bench, ROUNDS times, into $OUT/ab-ARMTAG-DTYPE-ROUND.json (ARMTAG the
# tree ab_summary.py reads: alu70, tensor70, alufull, tensorfull).
ab() {
  for rep in $(seq 1 $2); do
    for arm in tensor alu; do
      for dt in bf16 f16; do
        LADDER_KERNELS_DIR=/tmp/k-$arm LADDER_CACHE_DIR=/tmp/lc-$arm timeout 90 $B bench layernorm --dtype $dt $S \
          --json $OUT/ab-$arm$1-$dt-$rep.json 2>&1 | grep -E " ladder |rror" | sed "s/^/[$1 $arm] /"
      done
    done
    echo "$1 round $rep done at $SECONDS s"
  done >> $OUT/ab-$n.txt
  echo "A/B $1 ($2 rounds) done at $SECONDS s" >> $L
}
# summary TAG...: each tag's table (tensorTAG against aluTAG) into $OUT/ab-summary-N.txt and $L.
summary() {
  local tag
  for tag in "$@"; do python3 reports/h200/device-calls/ab_summary.py $OUT alu$tag tensor$tag; done \
    > $OUT/ab-summary-$n.txt
  cat $OUT/ab-summary-$n.txt >> $L
  (cd $OUT && tar czf /tmp/ab.tgz ab-*-*-*.json && rm -f ab-*-*-*.json && mv /tmp/ab.tgz ab-$n.tgz)
}
if [[ $card == *H200* ]]; then
  ab full 2
  summary full
  CALL=${n}b bash reports/h200/device-calls/a296.sh  # its own log (log-${n}b.txt)
  exit 0
fi
LADDER_KERNELS_DIR=/tmp/k-tensor verify_ops verify-ln-$n 150 layernorm
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog
nvidia-cuda-mps-control -d && echo "MPS started" >> $L
CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=70 ab 70 2
echo quit | nvidia-cuda-mps-control; sleep 2
unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
ab full 1
summary 70 full
# What a310.sh racechecks on this card, with the time left.
LADDER_CACHE_DIR=/tmp/lc-san racecheck_ln_bwd_left $n ${END:-570}
cat $L
echo "total $SECONDS s"
