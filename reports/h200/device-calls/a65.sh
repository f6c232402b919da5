export LADDER_COMMIT=9806254; OUT=/tmp/o bash scripts/device_check.sh tests  # call 65
