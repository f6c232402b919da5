#!/bin/bash
# Call 243: calls 240, 241 and 242 in one lease, one after the other, each into its own folder
# under $OUT (each script empties its own $OUT before packing it), so that one machine start
# serves all three (CALLS="240 242" runs only those). About 7 minutes for all three. Carried:
# .device/ladder (main's build, stripped).
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
D=$PWD/reports/h200/device-calls
TOP=$OUT
for c in ${CALLS:-240 241 242}; do
  mkdir -p $TOP/c$c
  echo "==== a$c.sh at $SECONDS s"
  OUT=$TOP/c$c bash $D/a$c.sh 2>&1 | tail -40
done
echo "all done at $SECONDS s"
true
