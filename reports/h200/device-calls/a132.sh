#!/bin/bash
# Call 132: the evidence for auto's streamed LayerNorm (bf16 rows of 512 and 1024 chunks, fp32 of
# 1024-4096, from 2048 rows) and the opt-in streamed RMSNorm, on the carried binary: verify (every
# op, dtype and variant, fixtures included, the loop variants of both among them) and its
# worst-error tables, bench, memcheck over the bf16 loop rungs (bare allocations); then, as
# measurements for later, the streamed RMSNorm against auto and f16 LayerNorm streamed against
# auto (one repeat, cold), and racecheck over the bf16 loop rungs. Files go straight to $OUT, the
# evidence first, so a run cut short keeps what finished.
set -u
B=$PWD/.device/ladder
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv
t0=$SECONDS
$B verify --jobs 14 --json $OUT/verify.json > /tmp/verify132.txt 2>&1; echo "verify exit $? ($((SECONDS-t0)) s)"
grep -E "FAIL|UNRESOLVED|XPASS|rungs:" /tmp/verify132.txt | head -20
$B verify --worst-from $OUT/verify.json > $OUT/verify-worst.txt 2>&1
t0=$SECONDS
$B bench --json $OUT/bench.json > $OUT/bench.txt 2>&1; echo "bench exit $? ($((SECONDS-t0)) s)"
grep -E "copy ceiling|layernorm .*(bf16|f32) .*(16384 +4096|8192 +8192|4096 +16384)" $OUT/bench.txt | head -12
python3 -c "
import json; d=json.load(open('reports/h200/loop-ladder.json')); d['rungs']=[r for r in d['rungs'] if r['kernel']['dtype']=='bf16']
json.dump(d,open('/tmp/loop-bf16.json','w'))"
timeout 60 compute-sanitizer --tool memcheck --target-processes all --print-limit 5 $B run --ladder /tmp/loop-bf16.json --bare-allocations --jobs 4 --timeout 50 > /tmp/mc132.txt 2>&1
{ echo "exit $?"; grep -E "ERROR SUMMARY|rungs:|Invalid|out of bounds" /tmp/mc132.txt | sort | uniq -c; } | tee $OUT/memcheck-loop.txt
bench() { timeout 40 $B bench "$@" 2>&1 | grep -E " ladder |copy ceiling"; }
S="--shape 16384x4096 --shape 8192x8192 --shape 4096x16384 --shape 2048x32768"
{
bench rmsnorm --dtype bf16 $S --shape 65536x1024 | sed "s/^/auto /"
for t in 128 256 512; do bench rmsnorm --dtype bf16 $S --shape 65536x1024 --variant schedule=loop --variant loop_threads=$t | sed "s/^/loop-t$t /"; done
bench layernorm --dtype f16 $S | sed "s/^/auto /"
for t in 128 256; do bench layernorm --dtype f16 $S --variant schedule=loop --variant loop_threads=$t | sed "s/^/loop-p3-t$t /"; done
bench rmsnorm --dtype f32 $S | sed "s/^/auto /"
for t in 256 512; do bench rmsnorm --dtype f32 $S --variant schedule=loop --variant loop_threads=$t | sed "s/^/loop-t$t /"; done
} > $OUT/bench-loop-4.txt 2>&1
grep -v "copy ceiling" $OUT/bench-loop-4.txt | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1 | awk '{print $1,$2,$3,$4,$5,$8,$11}'
timeout 60 compute-sanitizer --tool racecheck --target-processes all --print-limit 5 $B run --ladder /tmp/loop-bf16.json --jobs 4 --timeout 50 > /tmp/rc132.txt 2>&1
{ echo "exit $?"; grep -E "RACECHECK SUMMARY|rungs:|Hazard" /tmp/rc132.txt | sort | uniq -c; } | tee $OUT/racecheck-loop.txt
true
