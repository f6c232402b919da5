#!/bin/bash
# Call 277. a276.sh again, for an H200 (call 276 got an H100: early 0.911-0.963 of late's time at
# the 256- and 512-thread rows, 1.019 at 64 threads, every rmsnorm_bwd rung passed). 1. The same
# A/B, with f16 8192x8192 and 4096x8192 added (512 threads, where auto takes early and call 276
# timed bf16 only). 2. Every rmsnorm_bwd verify rung. 3. On an H200: the bench of record, the
# decode row's peers, every other backward verify rung (a276.sh's step 3). On an H100 instead:
# every add_rmsnorm_bwd and layernorm_bwd verify rung on the checkout's build.
# Carried: .device/ladder.xz (the checkout's build), .device/ladder-main.xz (main's before the
# change). Files go to $OUT, tarred but for the log and the summary.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
unxz() { python3 -c "import lzma,sys; open(sys.argv[2],'wb').write(lzma.open(sys.argv[1]).read())" $1 $2 && chmod +x $2; }
unxz .device/ladder.xz .device/ladder
unxz .device/ladder-main.xz .device/ladder-main
B=$PWD/.device/ladder
export LADDER_KERNELS_DIR=$PWD/kernels
left() { local l=$(( $1 - SECONDS )); [ $l -lt 5 ] && l=5; echo $l; }
mkdir -p $OUT
L=$OUT/log-277.txt
echo "# Call 277 ($LADDER_COMMIT, a277.sh) on $card, driver $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)" > $L
S=""; [[ $card == *H200* ]] || S="--sms 96"
export LADDER_CACHE_DIR=/tmp/lc-cand
{ for rep in 1 2 3; do
    for tree in late early; do
      e=0; [ $tree = early ] && e=1
      timeout 90 $B bench rmsnorm_bwd --dtype bf16 --shape 16384x4096 8192x8192 4096x8192 32768x2048 65536x1024 \
        $S --variant early=$e --json $OUT/ab-$tree-bf16-$rep.json 2>&1 | grep -E " ladder |rror" | sed "s/^/[$tree $rep] /"
      timeout 60 $B bench rmsnorm_bwd --dtype f16 --shape 16384x4096 8192x8192 4096x8192 $S --variant early=$e \
        --json $OUT/ab-$tree-f16-$rep.json 2>&1 | grep -E " ladder |rror" | sed "s/^/[$tree $rep] /"
    done
  done
} > $OUT/ab-277.txt 2>&1
echo "A/B done at $SECONDS s" >> $L
python3 reports/h200/device-calls/ab_summary.py $OUT late early > $OUT/ab-277-summary.txt
cat $OUT/ab-277-summary.txt >> $L
timeout 150 $B verify rmsnorm_bwd --jobs 14 --json $OUT/verify-rms-bwd-277.json > $OUT/verify-rms-bwd-277.txt 2>&1
echo "verify exit $? at $SECONDS s" >> $L
grep -E "rungs:" $OUT/verify-rms-bwd-277.txt | tail -1 >> $L
grep -E " FAIL | UNRESOLVED | XPASS " $OUT/verify-rms-bwd-277.txt | head -10 >> $L
keep() { (cd $OUT && tar czf /tmp/c.tgz $(ls | grep -vE '^(log-277.txt|ab-277-summary.txt|bench.json|call-277.*tgz)$') \
  && rm -f $(ls | grep -vE '^(log-277.txt|ab-277-summary.txt|bench.json|call-277.*tgz)$') && mv /tmp/c.tgz call-277-$1.tgz); }
keep ab
if [[ $card == *H200* ]]; then
  # The rows auto gives early (256 threads or more): early no slower than late at each.
  python3 - $OUT/ab-277-summary.txt <<'PY' || B=$PWD/.device/ladder-main
import sys
rows = [l for l in open(sys.argv[1]) if l.startswith("rmsnorm_bwd") and ("16384x4096" in l or "8192x8192" in l or "4096x8192" in l)]
worse = [l for l in rows if "missing" in l or float(l.split()[-1]) > 1.005]
print("".join(worse)); sys.exit(1 if worse or not rows else 0)
PY
  echo "bench of record with $B at $SECONDS s" >> $L
  export LADDER_CACHE_DIR=/tmp/lc-record
  timeout $(left 300) $B bench --json $OUT/bench.json > $OUT/bench-277.txt 2>&1; echo "bench exit $? at $SECONDS s" >> $L
  grep -E "copy ceiling" $OUT/bench-277.txt >> $L
  timeout $(left 370) python3 scripts/bench_peers.py --only add_rmsnorm --shape 1x4096 --cache cold \
    --json $OUT/peers-decode-277.json > $OUT/peers-decode-277.txt 2>&1; echo "peers exit $? at $SECONDS s" >> $L
  grep -iE "triton|ladder|ours" $OUT/peers-decode-277.txt | head -8 >> $L
  keep record
  timeout $(left 575) $B verify add_rmsnorm_bwd layernorm_bwd --jobs 14 --json $OUT/verify-bwd-277.json > $OUT/verify-bwd-277.txt 2>&1
  echo "verify (add_rmsnorm_bwd, layernorm_bwd) exit $? at $SECONDS s" >> $L
  grep -E "rungs:" $OUT/verify-bwd-277.txt | tail -1 >> $L
  grep -E " FAIL | UNRESOLVED | XPASS " $OUT/verify-bwd-277.txt | head -10 >> $L
  keep verify
else
  timeout $(left 400) $B verify add_rmsnorm_bwd layernorm_bwd --jobs 14 --json $OUT/verify-bwd-277.json > $OUT/verify-bwd-277.txt 2>&1
  echo "verify (add_rmsnorm_bwd, layernorm_bwd) exit $? at $SECONDS s" >> $L
  grep -E "rungs:" $OUT/verify-bwd-277.txt | tail -1 >> $L
  grep -E " FAIL | UNRESOLVED | XPASS " $OUT/verify-bwd-277.txt | head -10 >> $L
  keep verify
fi
cat $L
echo "total $SECONDS s"
