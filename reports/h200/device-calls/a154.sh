#!/bin/bash
# Call 154: the bulk-copy backward kernels at the widths where the register kernels stream their
# rows (16-bit d > 8192, fp32 d > 8192), where auto now takes them: rmsnorm_bwd_bulk and
# add_rmsnorm_bwd_bulk (new) and layernorm_bwd_bulk, against the register kernels (schedule=regs),
# one binary, two repeats, cold; then their rungs (bwd-bulk-ladder.json: verify's bulk variants of
# the three ops with four large shapes) under ladder run, memcheck over the bf16 ones, and ladder
# verify of the three backward ops.
set -u
B=$PWD/.device/ladder
export LADDER_COMMIT=${LADDER_COMMIT:?} LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc
mkdir -p $OUT
b() { local tag=$1; shift; timeout 120 $B bench "$@" 2>&1 | grep -E " ladder |copy ceiling|rror" | sed "s/^/$tag /"; }
{ for rep in 1 2; do
    for op in rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd; do
      for spec in "--dtype bf16 --shape 2048x16384 --shape 1024x32768" "--dtype f16 --shape 2048x16384" "--dtype f32 --shape 1024x16384"; do
        b regs $op $spec --variant schedule=regs
        b auto $op $spec
      done
    done
    b auto-dh add_rmsnorm_bwd --dtype bf16 --shape 2048x16384 --variant dh=1
    b regs-dh add_rmsnorm_bwd --dtype bf16 --shape 2048x16384 --variant dh=1 --variant schedule=regs
    b bulk-i4 rmsnorm_bwd --dtype bf16 --shape 2048x16384 --variant schedule=bulk --variant bulk_items=4
    b bulk-i4 layernorm_bwd --dtype bf16 --shape 2048x16384 --variant schedule=bulk --variant bulk_items=4
    echo "rep $rep done at $SECONDS s" >&2
  done; } > $OUT/bench-bwd-wide.txt
grep -v "copy ceiling" $OUT/bench-bwd-wide.txt | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1 -s | awk '{print $1,$2,$3,$4,$5,$8,$11,"clean",$13,$14}'
{ echo "== ladder run --ladder reports/h200/bwd-bulk-ladder.json"
  timeout 200 $B run --ladder reports/h200/bwd-bulk-ladder.json --jobs 8 --timeout 60 > /tmp/lad154.txt 2>&1; echo "exit $? at $SECONDS s"
  grep -vE " PASS " /tmp/lad154.txt | tail -30; grep -E "rungs:" /tmp/lad154.txt; } | tee $OUT/bwd-bulk-ladder-154.txt | tail -4
{ echo "== ladder verify rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd"
  LADDER_CACHE_DIR=/tmp/lc-v timeout 200 $B verify rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd --jobs 14 2>&1 | grep -E "FAIL|UNRESOLVED|XPASS|rungs:" | tail -20
  echo "exit ${PIPESTATUS[0]} at $SECONDS s"; } | tee $OUT/verify-154.txt | tail -3
if [ $SECONDS -lt 420 ]; then
  python3 -c "
import json; d=json.load(open('reports/h200/bwd-bulk-ladder.json'))
d['rungs']=[r for r in d['rungs'] if r['kernel']['dtype']=='bf16']
json.dump(d,open('/tmp/bwd-bulk-bf16.json','w'))"
  timeout $((585-SECONDS)) compute-sanitizer --tool memcheck --target-processes all --print-limit 5 $B run --ladder /tmp/bwd-bulk-bf16.json --bare-allocations --jobs 4 --timeout 200 > /tmp/mc154.txt 2>&1
  { echo "exit $?"; grep -E "ERROR SUMMARY|rungs:|Invalid|out of bounds" /tmp/mc154.txt | sort | uniq -c; } | tee $OUT/memcheck-bwd-bulk-154.txt
else echo "memcheck skipped at $SECONDS s"; fi
echo "total $SECONDS s"
true
