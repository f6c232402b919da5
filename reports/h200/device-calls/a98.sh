#!/bin/bash
# Call 98: the wide builds that fill their launch bound stage the weight in shared memory once a
# block by cp.async (STAGE_WEIGHT, norm::StagedWeight) instead of reading it in a register batch
# before the stores (BATCH_WEIGHT). Same binary (its planner gives those launches d / VEC * 16
# bytes of dynamic shared memory; main's kernels ignore them), three kernel trees, two repeats:
# main (exp/base), stage (kernels/), stage3 (exp/k3: rmsnorm's staged build under a launch bound
# of three blocks an SM). Then verify rmsnorm and add_rmsnorm on stage, the peers of
# add_rmsnorm, and the selftest rung whose crash follows a passing case.
set -u
B=$PWD/.device/ladder
export LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p /tmp/o $OUT
for rep in 1 2; do
  for k in main stage stage3; do
    case $k in main) kd=$PWD/exp/base/kernels ;; stage) kd=$PWD/kernels ;; stage3) kd=$PWD/exp/k3/kernels ;; esac
    export LADDER_KERNELS_DIR=$kd
    timeout 120 $B bench add_rmsnorm rmsnorm --dtype bf16 --shape 512x32768 --shape 2048x32768 --shape 4096x16384 2>&1 | grep " ladder" | sed "s/^/$k /"
    timeout 100 $B bench add_rmsnorm rmsnorm --dtype f16 --shape 2048x32768 --shape 4096x16384 2>&1 | grep " ladder" | sed "s/^/$k /"
  done
done > /tmp/o/bench-stage-weight.txt 2>&1
awk '{print $1,$2,$3,$4,$5,$8,$NF}' /tmp/o/bench-stage-weight.txt | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1
for k in stage; do
  kd=$PWD/kernels
  LADDER_KERNELS_DIR=$kd timeout 200 $B verify rmsnorm add_rmsnorm --jobs 14 > /tmp/o/verify-$k-full.txt 2>&1; echo "verify $k exit $?"
  grep -E "FAIL|UNRESOLVED|rungs:" /tmp/o/verify-$k-full.txt | head -20 | tee /tmp/o/verify-$k.txt
done
timeout 120 python3 scripts/bench_peers.py --only add_rmsnorm --cache cold --json /tmp/o/peers-add.json > /tmp/o/peers-add.txt 2>&1; echo "peers exit $?"
grep -E "32768" /tmp/o/peers-add.txt | head
timeout 60 $B run --ladder probes/selftest.json st_crash_after_pass st_crash --json /tmp/o/crash-after-pass.json > /tmp/o/crash-after-pass.txt 2>&1; echo "crash exit $?"
cat /tmp/o/crash-after-pass.txt | tail -5
cp /tmp/o/bench-stage-weight.txt /tmp/o/verify-stage.txt /tmp/o/peers-add.txt /tmp/o/crash-after-pass.txt /tmp/o/crash-after-pass.json $OUT/ 2>/dev/null
true
