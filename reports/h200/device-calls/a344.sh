#!/bin/bash
# Call 344 (and later calls by CALL): what row_group_sum's one-warp barrier (85b357b) costs the
# builds that still compile it. Since ef07dcb a build whose block is fixed wider than a warp
# leaves the barrier out and compiles to its pre-barrier machine code (every-build documents
# compared on the CPU machine: reports/compile/code-*.txt); the builds whose block width is known
# only at run time keep it, and at ten rows of the bench of record their code is not what call
# 258 timed. Two kernel trees, cold, two rounds with the arms interleaved: "barrier" (the
# checkout's) and "bare" (the checkout less the barrier's line, whose builds compile to 723e796's
# code, as checked on the CPU machine), at those rows.
# - On an H200: first the bench of record and the decode row's peers (call 296's), then the
#   A/B until AB_END (default 460), then every verify rung of the six ops until END (default 585).
# - On any other card: the A/B until AB_END (default 330), then every verify rung until END.
# Carried: .device/ladder.xz (the checkout's build). Files go to $OUT (at most seven).
set -u
n=${CALL:-344}
source reports/h200/device-calls/call_env.sh $n
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc-cand
[[ $card == *H200* ]] && bench_of_record $n
rm -rf /tmp/k-barrier /tmp/k-bare && cp -r kernels /tmp/k-barrier && cp -r kernels /tmp/k-bare
python3 - /tmp/k-bare/norm_common.cuh >> $L <<'PY'
import sys
path, line = sys.argv[1], "    if constexpr (BLOCK <= 32) __syncwarp();\n"
text = open(path).read()
print(f"bare: the barrier's line stood {text.count(line)} time(s) in {path}")
open(path, "w").write(text.replace(line, ""))
PY
# The bench-of-record rows whose builds' code the barrier changed (run-time block widths).
groups=("add_rmsnorm --dtype bf16 --shape 8192x2049 --shape 512x32768 --shape 65536x1024"
        "rmsnorm --dtype bf16 --shape 16384x2049"
        "rmsnorm_bwd layernorm_bwd add_rmsnorm_bwd --dtype bf16 --shape 16384x4096 --shape 8192x2049"
        "rmsnorm_bwd layernorm_bwd add_rmsnorm_bwd --dtype f32 --shape 16384x4096")
ab_end=${AB_END:-330}
[[ $card == *H200* ]] && ab_end=${AB_END:-460}
stop=$(( SECONDS + $(left $ab_end) ))
for rep in 1 2; do
  for arm in barrier bare; do
    for g in "${!groups[@]}"; do
      (( SECONDS < stop )) || break
      LADDER_KERNELS_DIR=/tmp/k-$arm LADDER_CACHE_DIR=/tmp/lc-$arm timeout $(left $stop) \
        $B bench ${groups[$g]} --json $OUT/ab-$arm-$g-$rep.json 2>&1 | grep -E " ladder |rror" |
        sed "s/^/[$arm] /"
    done
  done
  echo "round $rep done at $SECONDS s"
done >> $OUT/ab-$n.txt
echo "A/B done at $SECONDS s" >> $L
python3 reports/h200/device-calls/ab_summary.py $OUT barrier bare > $OUT/ab-summary-$n.txt
cat $OUT/ab-summary-$n.txt >> $L
(cd $OUT && tar czf /tmp/ab.tgz ab-*-*-*.json && rm -f ab-*-*-*.json && mv /tmp/ab.tgz ab-$n.tgz)
verify_every_rung $n ${END:-585}
cat $L
echo "total $SECONDS s"
