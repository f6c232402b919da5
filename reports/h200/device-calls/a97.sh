#!/bin/bash
# Call 97: verify --write-ladder, then ladder repro of two verify rungs (a three-launch backward
# case and a forward OFF_GRID case), each built and run on the H200.
B=$PWD/.device/ladder; export LADDER_CACHE_DIR=/tmp/lc; mkdir -p $OUT; ( $B verify layernorm_bwd --dtype bf16 --no-fixtures --write-ladder /tmp/vb.json && rm -rf /tmp/rb && $B repro layernorm_bwd_bf16 --ladder /tmp/vb.json --set rows=83 --set d=769 --out /tmp/rb && cd /tmp/rb && ./build.sh && ./repro; echo "repro exit $?"; $B verify rmsnorm --dtype bf16 --no-fixtures --write-ladder /tmp/vr.json && rm -rf /tmp/rr && $B repro rmsnorm_bf16 --ladder /tmp/vr.json --set rows=4096 --set d=2049 --out /tmp/rr && cd /tmp/rr && ./build.sh >/dev/null && ./repro; echo "repro exit $?" ) 2>&1 | tee $OUT/repro-verify.txt
