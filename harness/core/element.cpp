#include "harness/core/element.h"

#include <cmath>
#include <cstring>

namespace ladder {
namespace {
template <class T>
T read_as(const std::byte* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <class T>
void write_as(std::byte* p, T v) {
  std::memcpy(p, &v, sizeof v);
}
}  // namespace

double load_element(const std::byte* p, DType t) {
  switch (t) {
    case DType::F32: return read_as<float>(p);
    case DType::F64: return read_as<double>(p);
    case DType::F16: return oracles::from_f16_bits(read_as<std::uint16_t>(p));
    case DType::BF16: return oracles::from_bf16_bits(read_as<std::uint16_t>(p));
    case DType::I32: return read_as<std::int32_t>(p);
    case DType::U32: return read_as<std::uint32_t>(p);
    case DType::U8: return read_as<std::uint8_t>(p);
    case DType::I64: return static_cast<double>(read_as<std::int64_t>(p));
  }
  return 0;
}

void store_element(std::byte* p, DType t, double v) {
  switch (t) {
    case DType::F32: write_as<float>(p, static_cast<float>(v)); break;
    case DType::F64: write_as<double>(p, v); break;
    case DType::F16:
      write_as<std::uint16_t>(p, oracles::to_f16_bits(static_cast<float>(oracles::round_to(oracles::Precision::F16, v))));
      break;
    case DType::BF16:
      write_as<std::uint16_t>(p, oracles::to_bf16_bits(static_cast<float>(oracles::round_to(oracles::Precision::BF16, v))));
      break;
    case DType::I32: write_as<std::int32_t>(p, static_cast<std::int32_t>(std::llround(v))); break;
    case DType::U32: write_as<std::uint32_t>(p, static_cast<std::uint32_t>(std::llround(v))); break;
    case DType::U8: write_as<std::uint8_t>(p, static_cast<std::uint8_t>(std::llround(v))); break;
    case DType::I64: write_as<std::int64_t>(p, static_cast<std::int64_t>(std::llround(v))); break;
  }
}

oracles::Precision precision_of(DType t) {
  switch (t) {
    case DType::F16: return oracles::Precision::F16;
    case DType::BF16: return oracles::Precision::BF16;
    case DType::F64: return oracles::Precision::F64;
    default: return oracles::Precision::F32;
  }
}

double round_to_dtype(DType t, double v) {
  if (!is_float(t)) return std::nearbyint(v);
  return oracles::round_to(precision_of(t), v);
}

}  // namespace ladder
