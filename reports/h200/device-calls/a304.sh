#!/bin/bash
# Call 304: call 301's program under its own number, on the build after round 59's file split.
CALL=304 exec bash reports/h200/device-calls/a301.sh
