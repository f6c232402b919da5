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
# verify_ops NAME END VERIFY-ARG...: `ladder verify VERIFY-ARG...` until second END of the call,
# stopped by SIGINT so that the finished rungs keep their verdicts and the ones in flight are kept
# UNRESOLVED with how far they got; under VERIFY_UNDER where set (a compute-sanitizer command line).
# Writes $OUT/NAME.{txt,json}.gz, and into $L the exit, the tally, any sanitizer summary or hazard
# line and any FAIL, UNRESOLVED or XPASS rung (not the tally again).
verify_ops() {
  local name=$1 end=$2; shift 2
  timeout -s INT $(left $end) ${VERIFY_UNDER:-} $B verify "$@" --jobs 14 --json $OUT/$name.json \
    > $OUT/$name.txt 2>&1
  local rc=$?
  echo "${VERIFY_UNDER:+$VERIFY_UNDER: }verify ($*) exit $rc at $SECONDS s" >> $L
  { grep -E "RACECHECK SUMMARY|LEAK SUMMARY|Hazard|ERROR SUMMARY" $OUT/$name.txt | sort | uniq -c
    grep -E "rungs:" $OUT/$name.txt | tail -1
    grep -E " FAIL | UNRESOLVED | XPASS " $OUT/$name.txt | grep -v "rungs:" | head -10; } >> $L
  gzip -f $OUT/$name.txt $OUT/$name.json
}
# verify_every_rung N END: the six ops (1077 rungs on call 283's build) into $OUT/verify-N.*.
verify_every_rung() {
  verify_ops verify-$1 $2 rmsnorm add_rmsnorm layernorm rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd
}
