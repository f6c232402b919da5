// How many SMs a context's launches run on, counted by a launch rather than taken on trust.
// Why: `ladder bench --sms` times on a green context of some of the SMs, and the driver may run
// its launches on more SMs than it provisioned (under MPS, or after a module with dynamic
// parallelism: cuda.h's green-context notes). A bench that says "96 of 132 SMs" has to have seen
// no more than 96.
#pragma once
#include <string>

#include "harness/toolchain/nvrtc.h"

namespace ladder::bench {

// The census kernel's CUDA source (extern "C" ladder_sm_census), for the compile tests.
const char* sm_census_source();

// Launches `blocks` blocks (each holding its SM for about 20 µs, so that the scheduler spreads them
// over every SM it may use) in the current context and returns the number of distinct SMs they
// ran on (%smid). Throws std::runtime_error (NVRTC) or toolchain::DriverError.
int count_sms_used(const toolchain::Nvrtc& nvrtc, const std::string& arch, int blocks);

}  // namespace ladder::bench
