#!/bin/bash
# Call 212 (inline, call 211's machine and build): the planner tests without the NVRTC
# compile-all case (CI runs it), and the reduce=grid case alone.
mkdir -p $OUT; cd build-device && { echo "# Call 212: the device's own build (cmake/nvcc/Catch2 v3), planner tests without the NVRTC compile-all case (CI runs that)"; timeout 200 ./ladder_tests "[kernels]~[nvrtc]" 2>&1 | tail -3; timeout 100 ./ladder_tests "backward plans: reduce=grid*" 2>&1 | tail -2; } > $OUT/tests-212.txt; cat $OUT/tests-212.txt
