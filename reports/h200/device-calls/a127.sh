#!/bin/bash
# Call 127: the backward's weight-gradient reduces launched programmatically (pdl: column_sum may
# begin while the backward kernel drains, and waits for it) and LayerNorm's dgamma and dbeta
# reduced in one launch (column_sums=paired), against the previous launches (pdl=0,
# column_sums=separate); one binary, two repeats, cold. Then racecheck over the layernorm and
# backward bf16 rungs, and the Triton code torch.compile generates for F.layer_norm at bf16
# 4096x16384 (where it is ahead of ours).
set -u
B=$PWD/.device/ladder
export LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p /tmp/o $OUT
bench() { timeout 90 $B bench "$@" 2>&1 | grep -E " ladder |copy ceiling"; }
S="--shape 16384x4096 --shape 4096x8192 --shape 8192x2049"
{
for rep in 1 2; do
  bench rmsnorm_bwd add_rmsnorm_bwd --dtype bf16 $S --variant pdl=0 | sed "s/^/pdl0 /"
  bench rmsnorm_bwd add_rmsnorm_bwd --dtype bf16 $S | sed "s/^/pdl /"
  bench layernorm_bwd --dtype bf16 $S --variant pdl=0 --variant column_sums=separate | sed "s/^/pdl0-sep /"
  bench layernorm_bwd --dtype bf16 $S --variant pdl=0 | sed "s/^/pdl0-pair /"
  bench layernorm_bwd --dtype bf16 $S --variant column_sums=separate | sed "s/^/pdl-sep /"
  bench layernorm_bwd --dtype bf16 $S | sed "s/^/pdl-pair /"
  bench rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd --dtype f32 --shape 4096x8192 --variant pdl=0 --variant column_sums=separate 2>&1 | sed "s/^/pdl0-sep /"
  bench rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd --dtype f32 --shape 4096x8192 | sed "s/^/pdl-pair /"
done
} > /tmp/o/bench-pdl.txt 2>&1
grep -v "copy ceiling" /tmp/o/bench-pdl.txt | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1 | awk '{print $1,$2,$3,$4,$5,$8,$11,$12}'
cp /tmp/o/bench-pdl.txt $OUT/
(time SKIP_BUILD=1 OUT=/tmp/o bash scripts/device_check.sh sanitizebwd) > /tmp/o-san.txt 2>&1
grep -E "exit|rungs:|real|SUMMARY|Hazard" /tmp/o-san.txt; cp /tmp/o/sanitizer-bwd.txt $OUT/
timeout 100 env TORCH_LOGS=output_code python3 -c "
import torch, torch.nn.functional as F
x = torch.randn(4096, 16384, device='cuda', dtype=torch.bfloat16)
w = torch.randn(16384, device='cuda', dtype=torch.bfloat16); b = torch.randn_like(w)
f = torch.compile(lambda a: F.layer_norm(a, (16384,), w, b, 1e-6), dynamic=False)
f(x); torch.cuda.synchronize()
" > /tmp/o/inductor.txt 2>&1; echo "inductor exit $?"
grep -nE "@triton|triton_heuristics|def triton_|XBLOCK|R0_BLOCK|RBLOCK|num_warps|num_stages|for r0_offset|for roffset|tl.load|tl.store|welford|persistent" /tmp/o/inductor.txt | head -60 | tee $OUT/inductor-layernorm.txt
true
