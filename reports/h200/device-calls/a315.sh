#!/bin/bash
# Call 315 (and later calls by CALL). On an H200: a306.sh's program (call 294's whole program,
# the bench of record first among what an H200 still owes). On any other card: ladder_ops's cut
# on a real device, twice, as call_env.sh documents it: a plain verify of layernorm_bwd's bf16
# quick rungs cut CUT seconds in (default 6), then the same under racecheck cut RACE_CUT seconds
# after it starts (default 50). On an H100 (calls 321-322) those 42 rungs finish in about 21 s
# with a cold cache, so a cut at 25 s found nothing to cut; under racecheck 3 of them finish in
# 50 s. Each cut must leave the runner's last JSON (interrupted, the finished rungs'
# verdicts, the rungs in flight UNRESOLVED with their stage) and, under the sanitizer, its
# summary; cut_check.py says whether it did, from the files themselves.
# Carried: .device/ladder.xz (the checkout's build). Files go to $OUT.
set -u
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
if [[ $card == *H200* ]]; then CALL=${CALL:-315} exec bash reports/h200/device-calls/a306.sh; fi
n=${CALL:-315}
cut=${CUT:-6}
source reports/h200/device-calls/call_env.sh $n
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc-cut
verify_ops cut-plain-$n $cut layernorm_bwd --dtype bf16 --quick --no-fixtures
VERIFY_UNDER="$sanitizer racecheck" verify_ops cut-racecheck-$n $(( SECONDS + ${RACE_CUT:-50} )) \
  layernorm_bwd --dtype bf16 --quick --no-fixtures
for name in cut-plain-$n cut-racecheck-$n; do
  python3 reports/h200/device-calls/cut_check.py $OUT/$name.json.gz $OUT/$name.txt.gz >> $L 2>&1
  echo "cut_check $name exit $?" >> $L
done
cat $L
echo "total $SECONDS s"
