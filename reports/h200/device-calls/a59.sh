export LADDER_COMMIT=1ed7bd2; SKIP_BUILD=1 OUT=/tmp/o bash scripts/device_check.sh sanitize; OUT=/tmp/o bash scripts/device_check.sh tests  # call 59
