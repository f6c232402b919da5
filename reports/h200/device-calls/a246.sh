#!/bin/bash
# Call 246: a244.sh's checks and a245.sh's experiment in one lease (no machine came for either
# alone). In order of what is owed, each step bounded so that the call ends inside 590 s:
# 1. main's row-a-block kernels' kept reads (61bddf3), not yet run on a GPU: every add_rmsnorm
#    verify rung (its row kernel is auto's at 512x32768) and the quick grid of rmsnorm and
#    layernorm (their schedule=row rungs).
# 2. On an H200 only: main's whole ladder bench, for the targets (bench.json).
# 3. a245.sh's A/B (main, fma, both; bf16 and f16, two rounds) and every LayerNorm verify rung
#    on the both tree.
# Carried: .device/ladder (main's build, stripped). Files go to $OUT (at most 8 come back).
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
B=$PWD/.device/ladder
P=$PWD/reports/h200/device-calls/patches
left() { local l=$(( $1 - SECONDS )); [ $l -lt 5 ] && l=5; echo $l; }
mkdir -p $OUT /tmp/t-fma /tmp/t-both
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
L=$OUT/log-246.txt
echo "# Call 246 ($LADDER_COMMIT, a246.sh) on $card, driver $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)" > $L
{ echo "== 1. verify add_rmsnorm (every rung), rmsnorm and layernorm (--quick) on main at $SECONDS s"
  LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc timeout $(left 120) $B verify add_rmsnorm --jobs 14 \
    --json $OUT/verify-add.json > $OUT/verify-add.txt 2>&1; echo "verify add_rmsnorm exit $?"
  LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc timeout $(left 175) $B verify rmsnorm layernorm --quick \
    --jobs 14 --json $OUT/verify-fwd.json > $OUT/verify-fwd.txt 2>&1; echo "verify rmsnorm layernorm exit $?"
  grep -hE "rungs:" $OUT/verify-add.txt $OUT/verify-fwd.txt
  grep -hE "FAIL|UNRESOLVED|XPASS" $OUT/verify-add.txt $OUT/verify-fwd.txt | grep -v "rungs:" | head
} >> $L 2>&1
(cd $OUT && tar czf /tmp/v.tgz verify-add.* verify-fwd.* && rm -f verify-add.* verify-fwd.* && mv /tmp/v.tgz verify-246.tgz)
if [[ $card == *H200* ]]; then
  echo "== 2. bench (main, every default case) at $SECONDS s" >> $L
  LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc timeout $(left 270) $B bench --json $OUT/bench.json 2>&1 \
    | grep -E "copy ceiling" >> $L
fi
echo "== 3. A/B at $SECONDS s" >> $L
apply() { (cd $1 && patch -s -p1 < $2) || echo "$2 did not apply to $1" >> $L; }
cp -r kernels /tmp/t-fma/ && apply /tmp/t-fma $P/ln-fmaout.patch
cp -r kernels /tmp/t-both/ && apply /tmp/t-both $P/ln-fmaout.patch && apply /tmp/t-both $P/ln-onesum.patch
declare -A TREE=([main]=$PWD/kernels [fma]=/tmp/t-fma/kernels [both]=/tmp/t-both/kernels)
ALIGNED="--shape 16384x4096 --shape 65536x1024 --shape 8192x8192 --shape 4096x16384 --shape 2048x32768"
declare -A ARGS=([main]="$ALIGNED" [fma]="$ALIGNED" [both]="$ALIGNED --variant schedule=loop --variant loop_passes=2")
end_ab=$(( SECONDS + 200 ))
{ for rep in 1 2; do
    for t in main fma both; do
      for dt in bf16 f16; do
        [ $SECONDS -lt $end_ab ] || continue
        LADDER_KERNELS_DIR=${TREE[$t]} LADDER_CACHE_DIR=/tmp/lc-$t timeout 60 $B bench layernorm --dtype $dt ${ARGS[$t]} \
          --json $OUT/b-$t-$dt-$rep.json 2>&1 | grep -E " ladder |rror" | sed "s/^/$t /"
      done
    done
    echo "round $rep done at $SECONDS s"
  done
} > $OUT/bench-ln-246.txt 2>&1
(cd $OUT && tar czf /tmp/ab.tgz b-*.json && rm -f b-*.json && mv /tmp/ab.tgz ab-246.tgz)
{ echo "== 4. verify layernorm (every rung) on the both tree at $SECONDS s"
  LADDER_KERNELS_DIR=/tmp/t-both/kernels LADDER_CACHE_DIR=/tmp/lc-vboth timeout $(left 585) $B verify layernorm --jobs 14 \
    --json $OUT/verify-both.json > $OUT/verify-both.txt 2>&1; echo "verify layernorm exit $?"
  grep -hE "rungs:" $OUT/verify-both.txt
  grep -hE "FAIL|UNRESOLVED|XPASS" $OUT/verify-both.txt | grep -v "rungs:" | head
} >> $L 2>&1
(cd $OUT && tar czf /tmp/vb.tgz verify-both.* && rm -f verify-both.* && mv /tmp/vb.tgz verify-both-246.tgz)
cat $L $OUT/bench-ln-246.txt
echo "total $SECONDS s"
true
