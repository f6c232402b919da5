// Reading and writing one element of any DType as a double. fp16/bf16 go through the bit-exact
// conversions in oracles/half.h, so host data matches what the device holds.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "harness/core/dtype.h"
#include "oracles/half.h"

namespace ladder {

double load_element(const std::byte* p, DType t);
void store_element(std::byte* p, DType t, double v);  // rounds to nearest even for floats
double round_to_dtype(DType t, double v);              // the value `t` would hold
oracles::Precision precision_of(DType t);              // F32 for non-float types

}  // namespace ladder
