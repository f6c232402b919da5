// Evidence that outputs were written, and that nothing else was: sentinel coverage, stride gaps,
// redzones and read-only inputs. Pure host code over byte images, so the CPU tests cover it.
#pragma once
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "harness/device/buffers.h"
#include "harness/ladder/launch.h"

namespace ladder {


struct CoverageResult {
  std::size_t elements = 0;        // logical elements checked
  std::size_t unwritten = 0;       // sentinel A in run A and sentinel B in run B
  std::size_t sentinel_valued = 0; // held a sentinel in one run only: written, with that value
  std::string summary;             // "rows 2..3, all columns" or "" when all written
};

CoverageResult check_coverage(const ConcreteBuffer& b, std::span<const std::byte> run_a,
                              std::span<const std::byte> run_b);

// Summarizes an element mask (row-major, rows x cols, true = flagged) as ranges:
// "rows 2..3, all columns; row 5, columns 10..15". At most `max_groups` groups, then "and N more".
std::string summarize_mask(const std::vector<bool>& mask, std::int64_t rows, std::int64_t cols,
                           std::size_t max_groups = 4);

struct ByteDamage {
  std::size_t bytes = 0;  // bytes that differ from what they should be
  std::string summary;    // "" when none
};

// Bytes in the gaps between strided rows of an output that no longer hold `fill`.
ByteDamage check_gaps(const ConcreteBuffer& b, std::span<const std::byte> storage, std::byte fill);

// A redzone of `fill` bytes before (front) or after (back) a buffer.
ByteDamage check_redzone(std::span<const std::byte> zone, std::byte fill, bool front);

// Two runs' outputs must agree bit for bit on their logical elements (gaps hold each run's own
// sentinel, so they are left out).
ByteDamage compare_logical(const ConcreteBuffer& b, std::span<const std::byte> run_a, std::span<const std::byte> run_b);

// Read-only inputs must come back byte for byte; the summary names the first changed element.
ByteDamage compare_input(const ConcreteBuffer& b, std::span<const std::byte> before,
                         std::span<const std::byte> after);

}  // namespace ladder
