# Sourced by the device-call scripts from call 279 on, after `set -u`: `source call_env.sh N`.
# Unpacks the carried build (.device/ladder.xz, xz-compressed so that the copied tree stays under
# the device's 64 MiB) into .device/ladder, and sets card (the GPU's name), B (the build), L (the
# call's log, $OUT/log-N.txt, begun with the commit, card and driver) and left (seconds until a
# time into the call, at least 5). Needs LADDER_COMMIT and OUT.
export LADDER_COMMIT=${LADDER_COMMIT:?}
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
python3 -c "import lzma,sys; open(sys.argv[2],'wb').write(lzma.open(sys.argv[1]).read())" \
  .device/ladder.xz .device/ladder && chmod +x .device/ladder
B=$PWD/.device/ladder
mkdir -p $OUT
L=$OUT/log-$1.txt
echo "# Call $1 ($LADDER_COMMIT, ${0##*/}) on $card, driver $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)" > $L
left() { local l=$(( $1 - SECONDS )); [ $l -lt 5 ] && l=5; echo $l; }
# ladder_ops NAME END ARG...: `ladder ARG...` (a verify, or a run of a written ladder) until second
# END of the call, under VERIFY_UNDER where set (a compute-sanitizer command line). A cut sends
# SIGINT to the runner itself (the oldest process of the build), not to a sanitizer in front of it:
# the runner then ends its rungs, keeps the finished ones' verdicts and the ones in flight as
# UNRESOLVED with how far they got, and writes its last JSON and tally; the sanitizer then prints
# its summary. Whatever still runs 15 s after the cut is killed. Writes $OUT/NAME.{txt,json}.gz, and
# into $L the exit, whether it was cut, the tally, any sanitizer summary or hazard line and any
# FAIL, UNRESOLVED or XPASS rung (not the tally again).
ladder_ops() {
  local name=$1 stop=$(( SECONDS + $(left $2) )) cut=""; shift 2
  ${VERIFY_UNDER:-} $B "$@" --jobs 14 --json $OUT/$name.json > $OUT/$name.txt 2>&1 &
  local pid=$!
  while kill -0 $pid 2>/dev/null && (( SECONDS < stop )); do sleep 1; done
  if kill -0 $pid 2>/dev/null; then
    cut=", cut by SIGINT to the runner at $SECONDS s"
    pkill -INT -o -f "^$B "
    stop=$(( SECONDS + 15 ))
    while kill -0 $pid 2>/dev/null && (( SECONDS < stop )); do sleep 1; done
    kill -0 $pid 2>/dev/null && { cut+=", killed at $SECONDS s"; pkill -KILL -f "^$B "; kill -KILL $pid; }
  fi
  wait $pid
  local rc=$?
  echo "${VERIFY_UNDER:+$VERIFY_UNDER: }$1 (${*:2}) exit $rc$cut, done at $SECONDS s" >> $L
  { grep -E "RACECHECK SUMMARY|LEAK SUMMARY|Hazard|ERROR SUMMARY|Barrier error" $OUT/$name.txt | sort | uniq -c
    grep -E "rungs:" $OUT/$name.txt | tail -1
    grep -E " FAIL | UNRESOLVED | XPASS " $OUT/$name.txt | grep -v "rungs:" | head -10; } >> $L
  gzip -f $OUT/$name.txt $OUT/$name.json
}
# bench_of_record N: the bench of record ($OUT/bench.json, until second 120) and the decode row's
# peers (until 160), both into $L, archived with their outputs as $OUT/call-N-record.tgz (the
# device returns at most 8 files).
bench_of_record() {
  timeout $(left 120) $B bench --json $OUT/bench.json > $OUT/bench-$1.txt 2>&1
  echo "bench exit $? at $SECONDS s" >> $L
  grep -E "copy ceiling" $OUT/bench-$1.txt >> $L
  timeout $(left 160) python3 scripts/bench_peers.py --only add_rmsnorm --shape 1x4096 --cache cold \
    --json $OUT/peers-decode-$1.json > $OUT/peers-decode-$1.txt 2>&1
  echo "peers exit $? at $SECONDS s" >> $L
  (cd $OUT && tar czf /tmp/r.tgz bench.json bench-$1.txt peers-decode-$1.* &&
    rm -f bench.json bench-$1.txt peers-decode-$1.* && mv /tmp/r.tgz call-$1-record.tgz)
}
# The compute-sanitizer command line that VERIFY_UNDER takes, less the tool's name:
# VERIFY_UNDER="$sanitizer racecheck" (or memcheck, synccheck, initcheck); every process the
# runner starts is checked.
sanitizer="compute-sanitizer --target-processes all --print-limit 5 --tool"
# verify_ops NAME END VERIFY-ARG...: ladder_ops of `ladder verify VERIFY-ARG...`.
verify_ops() { local name=$1 end=$2; shift 2; ladder_ops $name $end verify "$@"; }
# verify_every_rung N END: the six ops (1077 rungs on call 283's build) into $OUT/verify-N.*.
verify_every_rung() {
  verify_ops verify-$1 $2 rmsnorm add_rmsnorm layernorm rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd
}
# racecheck_ln_bwd_left N END: racecheck over the 10 bf16 quick rungs of layernorm_bwd that call
# 308's cut left in flight (its schedule=bulk and reduce_grid builds and eps_large), run from the
# verify's own rungs written as a ladder ($OUT/ln-bwd-bf16-quick-N.json), into
# $OUT/racecheck-ln-bwd-N.*, until END.
racecheck_ln_bwd_left() {
  local n=$1 end=$2 r rungs=()
  $B verify layernorm_bwd --dtype bf16 --quick --no-fixtures \
    --write-ladder $OUT/ln-bwd-bf16-quick-$n.json >> $L 2>&1
  for r in schedule_bulk schedule_bulk_stats_recompute schedule_bulk_strided_odd \
      pdl_0_schedule_bulk_stats_recompute_strided_odd bulk_grid_3_schedule_bulk \
      bulk_grid_3_bulk_stages_1_schedule_bulk_stats_recompute reduce_grid_schedule_bulk \
      reduce_grid_schedule_bulk_stats_recompute_strided_odd bulk_grid_3_reduce_grid_schedule_bulk \
      eps_large; do rungs+=(layernorm_bwd_bf16_$r); done
  VERIFY_UNDER="$sanitizer racecheck" ladder_ops racecheck-ln-bwd-$n $end \
    run --ladder $OUT/ln-bwd-bf16-quick-$n.json "${rungs[@]}"
}
