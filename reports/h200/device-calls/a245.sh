#!/bin/bash
# Call 245: two changes to the 16-bit LayerNorm forward, whose rows short of 0.93 on the H200
# issue about 44% more instructions than RMSNorm over the same DRAM bytes and wait at two block
# barriers a row (call 242).
# - fma: patches/ln-fmaout.patch, norm::standardize: v * rstd + (-mean * rstd), one fma an
#   element where (v - mean) * rstd is two, in every forward LayerNorm kernel (fp32 unchanged).
# - both: fma plus patches/ln-onesum.patch: the streamed kernel's loop_passes=2 for 16-bit rows
#   as one block reduction a row (the sums of x - K and (x - K)^2 at once, K the row's first
#   value), so two passes over the row and one barrier where auto's three passes take two.
# ptxas sm_90: auto's builds keep their registers and spill nothing with fma; the two-pass
# VecAffine body fits 40 registers with no local memory (the bf16 kernel's other bodies hold 16
# bytes). Bench, two rounds, cold and hot, bf16 and f16, one binary: main and fma under auto
# at the default LayerNorm shapes, both with schedule=loop loop_passes=2 at the aligned ones;
# then every LayerNorm verify rung on the both tree (its loop_passes=2 rungs take the new path).
# Carried: .device/ladder. Files go to $OUT.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
B=$PWD/.device/ladder
P=$PWD/reports/h200/device-calls/patches
mkdir -p $OUT /tmp/t-fma /tmp/t-both
left() { local l=$(( $1 - SECONDS )); [ $l -lt 5 ] && l=5; echo $l; }
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "# Call 245 ($LADDER_COMMIT, a245.sh) on $card" > $OUT/log-245.txt
apply() { (cd $1 && patch -s -p1 < $2) || { echo "$2 did not apply to $1"; exit 1; }; }
cp -r kernels /tmp/t-fma/ && apply /tmp/t-fma $P/ln-fmaout.patch
cp -r kernels /tmp/t-both/ && apply /tmp/t-both $P/ln-fmaout.patch && apply /tmp/t-both $P/ln-onesum.patch
declare -A TREE=([main]=$PWD/kernels [fma]=/tmp/t-fma/kernels [both]=/tmp/t-both/kernels)
ALIGNED="--shape 16384x4096 --shape 65536x1024 --shape 8192x8192 --shape 4096x16384 --shape 2048x32768"
declare -A ARGS=([main]="$ALIGNED --shape 16384x2049" [fma]="$ALIGNED --shape 16384x2049"
                 [both]="$ALIGNED --variant schedule=loop --variant loop_passes=2")
{ for rep in 1 2; do
    for t in main fma both; do
      for dt in bf16 f16; do
        LADDER_KERNELS_DIR=${TREE[$t]} LADDER_CACHE_DIR=/tmp/lc-$t timeout 90 $B bench layernorm --dtype $dt ${ARGS[$t]} \
          --json $OUT/b-$t-$dt-$rep.json 2>&1 | grep -E " ladder |rror" | sed "s/^/$t /"
      done
    done
    echo "round $rep done at $SECONDS s"
  done
} > $OUT/bench-ln-245.txt 2>&1
cat $OUT/bench-ln-245.txt
(cd $OUT && tar czf /tmp/ab.tgz b-*.json && rm -f b-*.json && mv /tmp/ab.tgz ab-245.tgz)
{ echo "== verify layernorm (every rung) on the both tree at $SECONDS s"
  LADDER_KERNELS_DIR=/tmp/t-both/kernels LADDER_CACHE_DIR=/tmp/lc-vboth timeout $(left 570) $B verify layernorm --jobs 14 \
    --json $OUT/verify-both.json > $OUT/verify-both.txt 2>&1; echo "verify layernorm exit $?"
  grep -hE "rungs:" $OUT/verify-both.txt
  grep -hE "FAIL|UNRESOLVED|XPASS" $OUT/verify-both.txt | grep -v "rungs:" | head
  grep -hE "passes_2" $OUT/verify-both.txt | head -12
} >> $OUT/log-245.txt 2>&1
cat $OUT/log-245.txt
(cd $OUT && tar czf /tmp/v.tgz verify-both.* && rm -f verify-both.* && mv /tmp/v.tgz verify-245.tgz)
ls $OUT
echo "total $SECONDS s"
true
