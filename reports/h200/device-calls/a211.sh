#!/bin/bash
# Call 211 (inline): the device's own build (cmake/nvcc/Catch2 v3), then its planner tests with
# the one failure of call 209 shown: the NVRTC compile-all case ended by `timeout` (SIGTERM).
export LADDER_BUILD_DIR=$PWD/build-device; scripts/build > /tmp/b.txt 2>&1 || tail -20 /tmp/b.txt
cd build-device && timeout 120 ./ladder_tests "[kernels]" 2>&1 | grep -B30 -A8 FAILED | head -80
