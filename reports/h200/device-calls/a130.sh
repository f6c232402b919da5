#!/bin/bash
# Call 130 (branch layernorm-loop): LayerNorm streaming its row (schedule=loop,
# kernels/layernorm_loop.cuh: the first reads under an L2 evict_last policy, the last evict-first;
# four chunks a thread at a time) against auto's schedule (the row kernel, resident from 2048
# chunks), three passes (exact two-pass statistics) and two (shifted sums joined by Chan's
# formula), 256-1024 threads, rows and resident grids; one binary, two repeats (bf16; fp32 once), cold. Then the
# schedule=loop rungs of the verify grid with 4096x16384 and 700x4096 added
# (reports/h200/loop-ladder.json), racecheck over the bf16 ones, and ladder verify layernorm --quick.
set -u
B=$PWD/.device/ladder
export LADDER_KERNELS_DIR=$PWD/kernels
export LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=${LADDER_COMMIT:?}
o=/tmp/o130; mkdir -p $o $OUT
bench() { timeout 90 $B bench layernorm "$@" 2>&1 | grep -E " ladder |copy ceiling"; }
S="--shape 16384x4096 --shape 8192x8192 --shape 4096x16384 --shape 2048x32768"
{
for rep in 1 2; do
  bench --dtype bf16 $S | sed "s/^/auto /"
  for p in 3 2; do
    for t in 256 512 1024; do
      bench --dtype bf16 $S --variant schedule=loop --variant loop_passes=$p --variant loop_threads=$t | sed "s/^/loop-p$p-t$t /"
    done
  done
  bench --dtype bf16 $S --variant schedule=loop --variant loop_passes=2 --variant loop_grid=resident | sed "s/^/loop-p2-res /"
done
bench --dtype f32 $S | sed "s/^/auto /"
for v in p3-t512 p2-t512 p2-t1024; do
  bench --dtype f32 $S --variant schedule=loop --variant loop_passes=${v:1:1} --variant loop_threads=${v#*-t} | sed "s/^/loop-$v /"
done
} > $o/bench-loop-2.txt 2>&1
grep -v "copy ceiling" $o/bench-loop-2.txt | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1 | awk '{print $1,$3,$4,$5,$8,$11}'
timeout 150 $B run --ladder reports/h200/loop-ladder.json --jobs 12 --timeout 60 > $o/loop-rungs-full.txt 2>&1; echo "loop rungs exit $?"
grep -E "FAIL|UNRESOLVED|rungs:" $o/loop-rungs-full.txt | head -12 | tee $o/loop-rungs.txt
python3 -c "
import json; d=json.load(open('reports/h200/loop-ladder.json')); d['rungs']=[r for r in d['rungs'] if r['kernel']['dtype']=='bf16']
json.dump(d,open('/tmp/loop-bf16.json','w'))"
timeout 120 compute-sanitizer --tool racecheck --target-processes all --print-limit 5 $B run --ladder /tmp/loop-bf16.json --jobs 4 --timeout 120 > /tmp/san130.txt 2>&1; echo "racecheck exit $?"
grep -E "RACECHECK SUMMARY|rungs:|Hazard" /tmp/san130.txt | sort | uniq -c | tee $o/sanitizer-loop.txt
timeout 130 $B verify layernorm --quick --jobs 14 > $o/verify-loop-full.txt 2>&1; echo "verify exit $?"
grep -E "FAIL|UNRESOLVED|XPASS|rungs:" $o/verify-loop-full.txt | head -10 | tee $o/verify-loop.txt
tar czf $OUT/call130.tgz -C $o .
true
