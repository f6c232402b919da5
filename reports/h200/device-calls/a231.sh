#!/bin/bash
# Call 231: the two-pass streamed LayerNorm with its shift read under the keep policy.
# layernorm_fwd_loop with loop_passes=2 reads each row twice (three passes read it three times),
# yet measured 20-30% slower in 16 bits (call 149). Its shift was read with a 2-byte load before
# the same chunk's 16-byte evict_last load; if the L2 keeps the policy of a line's first access,
# the output pass reads those lines from DRAM again. patches/p2-shift.patch reads the shift under
# the same evict_last policy (the same value, so the same results; 40 registers in every dtype, as
# before); patches/p2-out2.patch adds two chunks in flight in the 16-bit output pass. Kernel
# sources only: one binary (.device/ladder, main's build, stripped), three kernel trees through
# LADDER_KERNELS_DIR. Part 1: bench, two rounds, every width the streamed kernel takes (and one
# 1024-thread row an SM at 32768), auto and loop_passes=2 on each tree; the second round's
# documents compared with `ladder compare` (two passes, base against patched) and `ladder compare
# --across-variants` (auto against patched two passes). Part 2: Nsight Compute DRAM bytes read of
# the 4096x16384 launch, base and patched (the hypothesis: the patched two-pass build reads the
# row from DRAM once). Part 3: every LayerNorm verify rung on both patched trees. Files go to $OUT.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
B=$PWD/.device/ladder
P=$PWD/reports/h200/device-calls/patches
mkdir -p $OUT /tmp/k1 /tmp/k2
apply() { (cd $1 && { patch -s -p1 < $2 2>/dev/null || git apply -p1 $2; }) || { echo "$2 did not apply"; exit 1; }; }
cp -r kernels /tmp/k1/ && apply /tmp/k1 $P/p2-shift.patch
cp -r /tmp/k1/kernels /tmp/k2/ && apply /tmp/k2 $P/p2-out2.patch
declare -A TREE=([base]=$PWD/kernels [p2fix]=/tmp/k1/kernels [p2out2]=/tmp/k2/kernels)
left() { local l=$(( $1 - SECONDS )); [ $l -lt 5 ] && l=5; echo $l; }
S16="--shape 16384x4096 --shape 8192x8192 --shape 4096x16384 --shape 2048x32768"
b() { # tag tree json args...
  local tag=$1 tree=$2 json=$3; shift 3
  LADDER_KERNELS_DIR=${TREE[$tree]} LADDER_CACHE_DIR=/tmp/lc-$tree timeout 90 $B bench layernorm "$@" --json $json 2>&1 |
    grep -E " ladder |copy ceiling|rror" | sed "s/^/$tag /"
}
{ for rep in 1 2; do
    for dt in bf16 f16; do
      b auto-$dt base $OUT/b-auto-$dt-$rep.json --dtype $dt $S16
      for t in base p2fix p2out2; do
        b $t-p2-$dt $t $OUT/b-$t-$dt-$rep.json --dtype $dt $S16 --variant schedule=loop --variant loop_passes=2
      done
    done
    # 32768: one 1024-thread row an SM against three of 512 (auto's loop block there).
    b p2fix-1024-bf16 p2fix $OUT/b-p2fix-1024-bf16-$rep.json --dtype bf16 --shape 2048x32768 --variant schedule=loop --variant loop_passes=2 --variant loop_threads=1024
    b auto-f32 base $OUT/b-auto-f32-$rep.json --dtype f32 --shape 4096x16384 --shape 8192x8192
    b p2fix-f32 p2fix $OUT/b-p2fix-f32-$rep.json --dtype f32 --shape 4096x16384 --shape 8192x8192
    echo "round $rep done at $SECONDS s" >&2
  done
  for dt in bf16 f16; do
    for t in p2fix p2out2; do
      echo "== compare two passes, base -> $t, $dt, round 2 (the hypothesis)"
      $B compare $OUT/b-base-$dt-2.json $OUT/b-$t-$dt-2.json | grep -vE "^$" | head -12
      echo "== compare auto (three passes; bulk at 32768) -> $t two passes, $dt, round 2"
      $B compare --across-variants $OUT/b-auto-$dt-2.json $OUT/b-$t-$dt-2.json | grep -vE "^$" | head -12
    done
  done
  echo "== compare f32 auto, base -> p2fix (auto is two passes at 16384)"
  $B compare $OUT/b-auto-f32-2.json $OUT/b-p2fix-f32-2.json | head -8
} > $OUT/bench-p2-shift.txt 2>&1
cat $OUT/bench-p2-shift.txt
echo "bench done $SECONDS s"
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,smsp__inst_executed.sum
{ for t in base p2fix; do
    echo "## $t layernorm_fwd_loop bf16 4096x16384 loop_passes=2"
    LADDER_KERNELS_DIR=${TREE[$t]} LADDER_CACHE_DIR=/tmp/lc-$t timeout 90 ncu --target-processes all --clock-control none --cache-control all \
      --metrics $M -k regex:"^layernorm" --launch-skip 2 --launch-count 1 \
      $B bench layernorm --dtype bf16 --shape 4096x16384 --iters 5 --variant schedule=loop --variant loop_passes=2 2>&1 | grep -E "^ +[a-z]|layernorm_fwd" | head -8
  done
  echo "## base layernorm_fwd_loop bf16 4096x16384 auto (three passes)"
  LADDER_KERNELS_DIR=${TREE[base]} LADDER_CACHE_DIR=/tmp/lc-base timeout 90 ncu --target-processes all --clock-control none --cache-control all \
    --metrics $M -k regex:"^layernorm" --launch-skip 2 --launch-count 1 \
    $B bench layernorm --dtype bf16 --shape 4096x16384 --iters 5 2>&1 | grep -E "^ +[a-z]|layernorm_fwd" | head -8
} > $OUT/ncu-p2-shift.txt 2>&1
cat $OUT/ncu-p2-shift.txt
echo "ncu done $SECONDS s"
for t in p2fix p2out2; do
  LADDER_KERNELS_DIR=${TREE[$t]} LADDER_CACHE_DIR=/tmp/lc-v-$t timeout $(left 580) $B verify layernorm --jobs 14 --json $OUT/verify-layernorm-$t.json > $OUT/verify-layernorm-$t.txt 2>&1
  echo "verify $t exit $?"; grep -E "FAIL|UNRESOLVED|XPASS|rungs:" $OUT/verify-layernorm-$t.txt | grep -v " PASS " | head -8
done
echo "total $SECONDS s"
true
