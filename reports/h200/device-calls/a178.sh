#!/bin/bash
# Call 178: the evidence for main after layernorm_bwd's 16-bit kernels moved dbeta's sums to
# registers (43bfa48). The selftest's launch guards (short shared memory must still trap);
# memcheck and racecheck over the layernorm_bwd bf16 rungs; then verify (every op, dtype and
# variant, fixtures included), its worst-error tables and the bench, with the carried binary.
# Files go to $OUT as each step ends.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
export LADDER_CACHE_DIR=/tmp/lc LADDER_KERNELS_DIR=$PWD/kernels
B=$PWD/.device/ladder
{ timeout 120 $B run --ladder probes/selftest.json 'st_bwd*' 'st_phase*' 'st_staged*' 'st_add*' --jobs 6; echo "exit $?"; } > $OUT/selftest-178.txt 2>&1
tail -3 $OUT/selftest-178.txt
$B verify layernorm_bwd --dtype bf16 --no-fixtures --quick --write-ladder /tmp/vb.json > /dev/null
for tool in memcheck racecheck; do
  extra=""; [ $tool = memcheck ] && extra="--bare-allocations"
  timeout 120 compute-sanitizer --tool $tool --target-processes all --print-limit 5 $B run --ladder /tmp/vb.json --jobs 4 $extra > /tmp/san.txt 2>&1
  { echo "exit $?"; grep -E "RACECHECK SUMMARY|ERROR SUMMARY|rungs:|Hazard|Invalid|out of bounds|Program hit" /tmp/san.txt | sort | uniq -c; } > $OUT/$tool-ln-bwd-178.txt
  echo "== $tool"; cat $OUT/$tool-ln-bwd-178.txt
done
o=/tmp/o178; mkdir -p $o
step() { (time SKIP_BUILD=1 OUT=$o bash scripts/device_check.sh $1) > /tmp/o178-$1.txt 2>&1
         grep -E "^==|exit|rungs:|real|SUMMARY|copy ceiling" /tmp/o178-$1.txt | head -14
         rm -f $o/verify.txt; cp -r $o/. $OUT/ 2>/dev/null; }
step verify
step worst
step bench
cat /tmp/o178-verify.txt /tmp/o178-worst.txt /tmp/o178-bench.txt > $OUT/device_log_178.txt
echo "total $SECONDS s"
true
