#!/bin/bash
# Call 303: call 297's program under its own number. On an H200 it runs call 296's program (the
# bench of record, the decode row's peers, every verify rung until END). On any other card it
# gives the build that the stop-64 change made (e62ece9: a cut rung's evidence says how far it
# got) its GPU evidence in about a minute: the built-in ladders with the isolation overhead, then
# a verify cut by SIGINT, whose JSON must keep the rungs that finished and count each cut rung's
# cases. Carried: .device/ladder.xz (the checkout's build). Files go to $OUT.
CALL=303 exec bash reports/h200/device-calls/a297.sh
