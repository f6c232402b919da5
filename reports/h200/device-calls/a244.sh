#!/bin/bash
# Call 244 (main after call 243): the row-a-block kernels' reads under the L2 keep policy
# (kernels/block_row.cuh, adopted from call 243's A/B on the H100). Bench, two rounds, cold and
# hot, main against main with the change reverted (patches/row-plain.patch: the plain loads
# back; kernel sources only, one binary); then verify every forward rung of add_rmsnorm (its row
# kernel is auto's at 512x32768) and the quick grid of rmsnorm and layernorm (their schedule=row
# rungs); then, with BENCH_ALL=1 on an H200 only, main's whole ladder bench and the peers'
# add_rmsnorm rows, for the targets. About 3 minutes without BENCH_ALL, 5 with it.
# Carried: .device/ladder (main's build, stripped). Files go to $OUT.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
B=$PWD/.device/ladder
P=$PWD/reports/h200/device-calls/patches
mkdir -p $OUT /tmp/t-before
left() { local l=$(( $1 - SECONDS )); [ $l -lt 5 ] && l=5; echo $l; }
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "# Call 244 ($LADDER_COMMIT, a244.sh) on $card" > $OUT/log-244.txt
cp -r kernels /tmp/t-before/ && (cd /tmp/t-before && patch -s -p1 < $P/row-plain.patch) || echo "row-plain.patch did not apply"
declare -A TREE=([main]=$PWD/kernels [before]=/tmp/t-before/kernels)
{ for rep in 1 2; do
    for t in before main; do
      for dt in bf16 f16; do
        LADDER_KERNELS_DIR=${TREE[$t]} LADDER_CACHE_DIR=/tmp/lc-$t timeout 60 $B bench add_rmsnorm --dtype $dt \
          --shape 512x32768 --shape 1024x32768 --json $OUT/b-$t-$dt-$rep.json 2>&1 | grep -E " ladder |rror" | sed "s/^/$t /"
      done
    done
  done
} > $OUT/bench-rowkeep-244.txt 2>&1
cat $OUT/bench-rowkeep-244.txt
# At most 8 files come back: each step packs its JSON as it ends, so a run cut short loses none.
(cd $OUT && tar czf /tmp/ab.tgz b-*.json && rm -f b-*.json && mv /tmp/ab.tgz ab-244.tgz)
{ echo "== verify at $SECONDS s"
  echo "== verify add_rmsnorm (every rung), rmsnorm and layernorm (--quick)"
  LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc timeout $(left 110) $B verify add_rmsnorm --jobs 14 \
    --json $OUT/verify-add.json > $OUT/verify-add.txt 2>&1; echo "verify add_rmsnorm exit $?"
  LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc timeout $(left 150) $B verify rmsnorm layernorm --quick \
    --jobs 14 --json $OUT/verify-fwd.json > $OUT/verify-fwd.txt 2>&1; echo "verify rmsnorm layernorm exit $?"
  grep -hE "rungs:" $OUT/verify-add.txt $OUT/verify-fwd.txt
  grep -hE "FAIL|UNRESOLVED|XPASS" $OUT/verify-add.txt $OUT/verify-fwd.txt | grep -v "rungs:" | head
} >> $OUT/log-244.txt 2>&1
cat $OUT/log-244.txt
(cd $OUT && tar czf /tmp/v.tgz verify-add.* verify-fwd.* && rm -f verify-add.* verify-fwd.* && mv /tmp/v.tgz verify-244.tgz)
if [[ $card == *H200* && ${BENCH_ALL:-0} == 1 ]]; then
  echo "== bench at $SECONDS s"
  LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc timeout $(left 330) $B bench --json $OUT/bench.json 2>&1 | grep -E "copy ceiling"
  echo "== peers at $SECONDS s"
  timeout $(left 370) python3 scripts/bench_peers.py --only add_rmsnorm --json $OUT/peers-add.json > $OUT/peers-add.txt 2>&1
  tail -3 $OUT/peers-add.txt
fi
ls $OUT
echo "total $SECONDS s"
true
