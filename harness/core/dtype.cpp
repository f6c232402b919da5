#include "harness/core/dtype.h"

#include <array>

namespace ladder {
namespace {
struct DTypeRow {
  DType type;
  std::size_t size;
  std::string_view name;
  std::string_view cuda;
  bool is_float;
};
constexpr std::array<DTypeRow, 8> kTypes{{
    {DType::F32, 4, "f32", "float", true},
    {DType::F16, 2, "f16", "__half", true},
    {DType::BF16, 2, "bf16", "__nv_bfloat16", true},
    {DType::F64, 8, "f64", "double", true},
    {DType::I32, 4, "i32", "int", false},
    {DType::U32, 4, "u32", "unsigned int", false},
    {DType::U8, 1, "u8", "unsigned char", false},
    {DType::I64, 8, "i64", "long long", false},
}};
const DTypeRow& row(DType t) { return kTypes[static_cast<std::size_t>(t)]; }
}  // namespace

std::size_t size_of(DType t) { return row(t).size; }
std::string_view label(DType t) { return row(t).name; }
std::string_view cuda_type_name(DType t) { return row(t).cuda; }
bool is_float(DType t) { return row(t).is_float; }

std::optional<DType> parse_dtype(std::string_view s) {
  if (s == "fp32" || s == "float32" || s == "float") return DType::F32;
  if (s == "fp16" || s == "float16" || s == "half") return DType::F16;
  if (s == "bfloat16") return DType::BF16;
  if (s == "fp64" || s == "float64" || s == "double") return DType::F64;
  for (const auto& r : kTypes)
    if (r.name == s) return r.type;
  return std::nullopt;
}

}  // namespace ladder
