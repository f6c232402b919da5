#!/bin/bash
# Call 278. More rows asked of the L2 in the register backward kernels of 512-thread blocks (one
# block an SM: bf16 8192x8192 and 4096x8192), cold, three rounds, the whole GPU on an H200,
# --sms 96 on an H100; each tree is the checkout's kernels with one patch (.device/patches):
# addpf2 (add_rmsnorm_bwd asks for the row after next too), rmspf3 (rmsnorm_bwd's EARLY build asks
# for the third row ahead too), lnpf3 (layernorm_bwd likewise). add_rmsnorm_bwd 16384x4096 (256
# threads, which no patch changes) is the control. On an H200, then the bench of record and the
# decode row's peers.
# Carried: .device/ladder.xz (the checkout's build), .device/ladder-main.xz, .device/patches.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
python3 -c "import lzma,sys; open(sys.argv[2],'wb').write(lzma.open(sys.argv[1]).read())" .device/ladder.xz .device/ladder
chmod +x .device/ladder
B=$PWD/.device/ladder
mkdir -p $OUT
L=$OUT/log-278.txt
echo "# Call 278 ($LADDER_COMMIT, a278.sh) on $card, driver $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)" > $L
S=""; [[ $card == *H200* ]] || S="--sms 96"
for t in addpf2 rmspf3 lnpf3; do
  rm -rf /tmp/k-$t && cp -r kernels /tmp/k-$t && patch -s -d /tmp/k-$t -p1 < .device/patches/$t.patch && echo "tree $t patched" >> $L
done
ab() {  # tree op shapes...
  local tree=$1 op=$2; shift 2
  local K=$PWD/kernels; [ $tree = cand ] || K=/tmp/k-$tree
  LADDER_KERNELS_DIR=$K LADDER_CACHE_DIR=/tmp/lc-$tree timeout 90 $B bench $op --dtype bf16 --shape "$@" $S \
    --json $OUT/ab-$tree-$op-$rep.json 2>&1 | grep -E " ladder |rror" | sed "s/^/[$tree $rep] /"
}
{ for rep in 1 2 3; do
    for tree in cand addpf2; do ab $tree add_rmsnorm_bwd 8192x8192 4096x8192 16384x4096; done
    for tree in cand rmspf3; do ab $tree rmsnorm_bwd 8192x8192 4096x8192; done
    for tree in cand lnpf3; do ab $tree layernorm_bwd 8192x8192 4096x8192; done
  done
} > $OUT/ab-278.txt 2>&1
echo "A/B done at $SECONDS s" >> $L
python3 reports/h200/device-calls/ab_summary.py $OUT cand addpf2 rmspf3 lnpf3 > $OUT/ab-278-summary.txt
cat $OUT/ab-278-summary.txt >> $L
(cd $OUT && tar czf /tmp/c.tgz ab-*.json ab-278.txt && rm -f ab-*.json ab-278.txt && mv /tmp/c.tgz call-278-ab.tgz)
if [[ $card == *H200* ]]; then
  # The bench of record on the checkout's build (the EARLY build measured faster in calls
  # 276-277), then the decode row's peers.
  left() { local l=$(( $1 - SECONDS )); [ $l -lt 5 ] && l=5; echo $l; }
  LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc-cand timeout $(left 480) $B bench --json $OUT/bench.json > $OUT/bench-278.txt 2>&1
  echo "bench exit $? at $SECONDS s" >> $L
  grep -E "copy ceiling" $OUT/bench-278.txt >> $L
  timeout $(left 570) python3 scripts/bench_peers.py --only add_rmsnorm --shape 1x4096 --cache cold \
    --json $OUT/peers-decode-278.json > $OUT/peers-decode-278.txt 2>&1; echo "peers exit $? at $SECONDS s" >> $L
  (cd $OUT && tar czf /tmp/r.tgz bench-278.txt peers-decode-278.* && rm -f bench-278.txt peers-decode-278.* && mv /tmp/r.tgz call-278-record.tgz)
fi
cat $L
echo "total $SECONDS s"
