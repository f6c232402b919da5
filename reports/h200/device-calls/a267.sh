#!/bin/bash
# Call 267: the first GPU run of `ladder bench --sms` (commits c2c0553..51322c2), on whatever card
# comes, and, on an H100, the H200 stand-in it was built for, calibrated against the H200's own
# bench (call 258, bench.json).
# Every card: 1. what the [gpu] test asks (rmsnorm bf16 64x1024 at --sms 16: the share named, the
#   census no wider, a time); 2. what --sms 200 and --sms 4 say.
# On an H200: 3. the bench of every default case (the bench of record) and the decode row's peers;
#   4. every forward verify rung with the time left (END_S).
# On an H100: 3. the bench of every default case on the whole GPU, then at --sms 96 (0.73 of 132
#   SMs: the H200's cycles a byte), then at --sms 88, each once; 4. the backward at bf16
#   2048x16384 at --sms 96, with the grids its bulk plans sized (132 SMs' or 96's); 5. every plan
#   of rmsnorm bf16 and layernorm fp32 at 4096x16384 at --sms 96.
# Carried: .device/ladder (main's build, stripped). Files go to $OUT.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
B=$PWD/.device/ladder
left() { local l=$(( $1 - SECONDS )); [ $l -lt 5 ] && l=5; echo $l; }
mkdir -p $OUT
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
L=$OUT/log-267.txt
echo "# Call 267 ($LADDER_COMMIT, a267.sh) on $card, driver $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)" > $L
export LADDER_CACHE_DIR=/tmp/lc-main
{
  echo "## rmsnorm bf16 64x1024 --iters 4 --sms 16 (what tests/test_l2_flush.cpp's [gpu] test runs)"
  timeout 60 $B bench rmsnorm --dtype bf16 --shape 64x1024 --iters 4 --sms 16 --json $OUT/sms16.json 2>&1 | tail -8
  echo "exit ${PIPESTATUS[0]}"
  python3 - $OUT/sms16.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); t = d["toolchain"]
print({k: t.get(k) for k in ("sm_count", "device_sm_count", "sms_asked", "sms_seen")})
r = d["results"][0]; print("first result:", r.get("op"), r.get("impl"), "cold_us", r.get("cold_us"), r.get("error"))
ok = t["sm_count"] >= 16 and t["sm_count"] < t["device_sm_count"] and 0 < t["sms_seen"] <= t["sm_count"] and r["cold_us"] > 0
print("the [gpu] test's assertions:", "hold" if ok else "FAIL")
PY
  for sms in 200 4; do
    echo "## --sms $sms"; timeout 60 $B bench rmsnorm --dtype bf16 --shape 64x1024 --sms $sms 2>&1 | tail -3
    echo "exit ${PIPESTATUS[0]}"
  done
} > $OUT/sms-check-267.txt 2>&1
echo "sms check done at $SECONDS s" >> $L
if [[ $card == *H200* ]]; then
  echo "== bench (main, every default case) at $SECONDS s" >> $L
  timeout $(left 220) $B bench --json $OUT/bench.json > $OUT/bench-267.txt 2>&1; echo "bench exit $? at $SECONDS s" >> $L
  grep -E "copy ceiling" $OUT/bench-267.txt >> $L
  timeout $(left 300) python3 scripts/bench_peers.py --only add_rmsnorm --shape 1x4096 --cache cold \
    --json $OUT/peers-decode-267.json > $OUT/peers-decode-267.txt 2>&1; echo "peers exit $? at $SECONDS s" >> $L
  echo "== verify (main: rmsnorm, add_rmsnorm, layernorm, every rung) at $SECONDS s" >> $L
  timeout $(left ${END_S:-570}) $B verify rmsnorm add_rmsnorm layernorm \
    --jobs 14 --json $OUT/verify-fwd-267.json > $OUT/verify-fwd-267.txt 2>&1
  echo "verify exit $? at $SECONDS s" >> $L
  grep -E "rungs:" $OUT/verify-fwd-267.txt | tail -1 >> $L
  grep -E " FAIL | UNRESOLVED | XPASS " $OUT/verify-fwd-267.txt | head -10 >> $L
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); json.dump(d, open(sys.argv[1],'w'), separators=(',',':'))" \
    $OUT/verify-fwd-267.json 2>/dev/null && gzip -f $OUT/verify-fwd-267.json
else
  for sms in 0 96 88; do
    a=""; [ $sms = 0 ] || a="--sms $sms"
    echo "== bench (main, every default case) $a at $SECONDS s" >> $L
    timeout $(left $(( SECONDS + 150 ))) $B bench $a --json $OUT/proxy-$sms.json > $OUT/proxy-$sms.txt 2>&1
    echo "bench $a exit $? at $SECONDS s" >> $L
    grep -E "copy ceiling|timed on" $OUT/proxy-$sms.txt >> $L
  done
  { timeout 90 $B bench rmsnorm_bwd layernorm_bwd --dtype bf16 --shape 2048x16384 --sms 96 --json $OUT/bwd-96.json 2>&1 \
      | grep -E " ladder |rror|ceiling|timed on"
    python3 -c "import json; d=json.load(open('$OUT/bwd-96.json')); [print(r['op'], r.get('geometry'), [(k.get('grid_blocks'), k.get('waves')) for k in r.get('kernels', [])]) for r in d['results'] if r.get('impl')=='ladder']" 2>&1 | head
  } > $OUT/bwd-sms-267.txt 2>&1
  # 5. the plans of the two fp32/bf16 4096x16384 rows short on the H200 besides the 16-bit
  #   LayerNorm's (call 265 swept those), at --sms 96.
  { for v in "" "schedule=loop loop_threads=256" "schedule=loop loop_threads=1024" "schedule=loop loop_hold=4" \
             "schedule=loop loop_grid=resident" "schedule=regs" "schedule=loop loop_passes=3" "schedule=bulk"; do
      a=""; for kv in $v; do a="$a --variant $kv"; done
      for case in "rmsnorm --dtype bf16" "layernorm --dtype f32"; do
        [ $(left 560) -gt 20 ] || break 2
        timeout 40 $B bench $case --shape 4096x16384 --sms 96 $a 2>&1 | grep -E " ladder |rror" | sed "s/^/[${v:-auto}] /"
      done
    done
  } > $OUT/sweep-sms96-267.txt 2>&1
  echo "sweep done at $SECONDS s" >> $L
  (cd $OUT && tar czf /tmp/p.tgz proxy-*.json bwd-96.json sms16.json && rm -f proxy-*.json bwd-96.json sms16.json && mv /tmp/p.tgz proxy-267.tgz)
fi
cat $L; cat $OUT/sms-check-267.txt; cat $OUT/bwd-sms-267.txt 2>/dev/null; cat $OUT/sweep-sms96-267.txt 2>/dev/null
echo "total $SECONDS s"
