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
echo "# Call $1 ($LADDER_COMMIT, a$1.sh) on $card, driver $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)" > $L
left() { local l=$(( $1 - SECONDS )); [ $l -lt 5 ] && l=5; echo $l; }
# verify_every_rung N END: every verify rung of the six ops and the fixtures (1077 on call 283's
# build) until second END of the call, into $OUT/verify-N.{txt,json}.gz, its tally and any
# FAIL, UNRESOLVED or XPASS row into $L.
verify_every_rung() {
  timeout $(left $2) $B verify rmsnorm add_rmsnorm layernorm rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd \
    --jobs 14 --json $OUT/verify-$1.json > $OUT/verify-$1.txt 2>&1
  echo "verify exit $? at $SECONDS s" >> $L
  grep -E "rungs:" $OUT/verify-$1.txt | tail -1 >> $L
  grep -E " FAIL | UNRESOLVED | XPASS " $OUT/verify-$1.txt | head -10 >> $L
  gzip -f $OUT/verify-$1.txt $OUT/verify-$1.json
}
