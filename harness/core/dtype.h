// Element types a buffer can hold. Sizes and names live here and nowhere else.
#pragma once
#include <cstddef>
#include <optional>
#include <string_view>

namespace ladder {

enum class DType { F32, F16, BF16, F64, I32, U32, U8, I64 };

std::size_t size_of(DType t);
std::string_view label(DType t);          // "f32", "f16", "bf16", ...
std::string_view cuda_type_name(DType t); // "float", "__half", "__nv_bfloat16", ...
std::optional<DType> parse_dtype(std::string_view s);  // accepts f32/fp32/float32, f16/fp16, bf16
bool is_float(DType t);

}  // namespace ladder
