// The backward bulk kernels with the weight-gradient sums of a cluster's blocks pooled into one
// partial row (bulk_pool=2, kernels/cluster_pool.cuh): the _pooled entry, whole rows a block, the
// grid as whole clusters, half the partial rows for the reduce (column_sum, column_sum_pair or the
// kernel's own), and the keys it refuses. auto pools layernorm_bwd's 16-bit rows of more than
// 1024 chunks a block, where it measured faster, and nothing else. No GPU needed.
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>

#include "tests/catch.h"
#include "tests/plan_helpers.h"

using namespace ladder_test;

namespace {

std::vector<KernelLaunch> plan_of(const std::string& op, DType dt, std::int64_t rows, std::int64_t d,
                                  std::map<std::string, std::string> v = {}) {
  return plan_checked({op, dt, v}, {{"rows", rows}, {"d", d}});
}

std::map<std::string, std::string> pooled(std::map<std::string, std::string> more = {}) {
  more["schedule"] = "bulk";
  more["bulk_pool"] = "2";
  return more;
}

// The partial rows of every gradient the row kernel writes, and that the reduce adds.
std::int64_t partial_rows(const std::vector<KernelLaunch>& plan) {
  const KernelLaunch& L = plan.front();
  std::int64_t parts = -1;
  for (const auto& b : L.buffers) {
    if (b.name.find("_partial") == std::string::npos) continue;
    if (parts >= 0) CHECK(b.rows == parts);  // dgamma's and dbeta's alike
    parts = b.rows;
  }
  REQUIRE(parts >= 0);
  if (L.cooperative) {
    CHECK(plan.size() == 1);
  } else {
    REQUIRE(plan.size() >= 2);
    for (std::size_t i = 1; i < plan.size(); ++i) {
      INFO(plan[i].entry);
      CHECK(plan[i].entry.find("column_sum") != std::string::npos);
      CHECK(plan[i].args[plan[i].entry.find("_pair") != std::string::npos ? 4 : 2].value ==
            static_cast<double>(parts));
    }
  }
  return parts;
}

}  // namespace

TEST_CASE("bulk_pool=2: the _pooled entry, whole rows a block, one partial row a cluster", "[kernels]") {
  ladder::register_builtin_oracles();
  struct Want { const char* op; DType dt; const char* entry; };
  for (const Want& w : {Want{"rmsnorm_bwd", DType::BF16, "ladder::rmsnorm_bwd_bulk_pooled<__nv_bfloat16, 4, 512, 2>"},
                        Want{"add_rmsnorm_bwd", DType::BF16, "ladder::add_rmsnorm_bwd_bulk_pooled<__nv_bfloat16, 4, 512, 2>"},
                        Want{"layernorm_bwd", DType::BF16, "ladder::layernorm_bwd_bulk_pooled<__nv_bfloat16, 4, 512, 2>"}}) {
    INFO(w.op);
    const auto one = plan_of(w.op, w.dt, 2048, 16384, {{"schedule", "bulk"}, {"bulk_pool", "1"}});
    const auto two = plan_of(w.op, w.dt, 2048, 16384, pooled());
    CHECK(two.front().entry == w.entry);
    // The same block, stages and grid as one block a partial row: only the partial rows halve.
    CHECK(two.front().block == one.front().block);
    CHECK(two.front().shared_bytes == one.front().shared_bytes);
    CHECK(two.front().grid[0] == 132);
    CHECK(partial_rows(one) == 132);
    CHECK(partial_rows(two) == 66);
    // The kernel's own reduce adds the pooled rows too.
    const auto grid = plan_of(w.op, w.dt, 2048, 16384, pooled({{"reduce", "grid"}}));
    CHECK(grid.front().cooperative);
    CHECK(partial_rows(grid) == 66);
  }
}

TEST_CASE("bulk_pool=2: the grid is whole clusters, sized by rows a block", "[kernels]") {
  ladder::register_builtin_oracles();
  const std::map<std::string, std::string> pinned{{"bulk_items", "4"}, {"bulk_threads", "512"}};
  // 67 rows: 34 clusters, one of whose blocks takes no row; 1 row: one cluster.
  const auto few = plan_of("rmsnorm_bwd", DType::BF16, 67, 4096, pooled(pinned));
  CHECK(few.front().grid[0] == 68);
  CHECK(partial_rows(few) == 34);
  const auto one = plan_of("layernorm_bwd", DType::F16, 1, 4096, pooled(pinned));
  CHECK(one.front().grid[0] == 2);
  CHECK(partial_rows(one) == 1);
  // bulk_grid=3: three clusters walking the rows.
  auto three_keys = pooled(pinned);
  three_keys["bulk_grid"] = "3";
  const auto three = plan_of("add_rmsnorm_bwd", DType::F32, 300, 8192, three_keys);
  CHECK(three.front().grid[0] == 6);
  CHECK(partial_rows(three) == 3);
  // Pooling takes whole rows: where auto would split 32768-wide rows over two blocks, a pooled
  // plan keeps them whole (1024 threads x 4 chunks).
  const auto wide = plan_of("rmsnorm_bwd", DType::BF16, 1024, 32768, pooled());
  CHECK(wide.front().entry == "ladder::rmsnorm_bwd_bulk_pooled<__nv_bfloat16, 4, 1024, 2>");
  CHECK(wide.front().grid[0] % 2 == 0);
}

TEST_CASE("bulk_pool: auto pools 16-bit layernorm_bwd's wide rows only, and the keys it refuses", "[kernels]") {
  ladder::register_builtin_oracles();
  auto pools = [](const std::string& op, DType dt, std::int64_t d) {
    return plan_of(op, dt, 2048, d).front().entry.find("_pooled") != std::string::npos;
  };
  for (DType dt : {DType::BF16, DType::F16}) {
    CHECK(pools("layernorm_bwd", dt, 16384));
    CHECK(pools("layernorm_bwd", dt, 12288));
    CHECK_FALSE(pools("layernorm_bwd", dt, 8192));   // 1024 chunks: one a thread, not built pooled
    CHECK_FALSE(pools("layernorm_bwd", dt, 32768));  // rows split over a cluster instead
    CHECK(partial_rows(plan_of("layernorm_bwd", dt, 2048, 16384)) == 66);
  }
  CHECK_FALSE(pools("layernorm_bwd", DType::F32, 8192));
  CHECK_FALSE(pools("layernorm_bwd", DType::F32, 16384));
  for (const char* op : {"rmsnorm_bwd", "add_rmsnorm_bwd", "layernorm_bwd"}) {
    INFO(op);
    for (std::int64_t d : {4096, 16384, 32768})
      if (std::string(op) != "layernorm_bwd" || d != 16384)
        CHECK(plan_of(op, DType::BF16, 2048, d).front().entry.find("_pooled") == std::string::npos);
    CHECK(plan_of(op, DType::BF16, 2048, 16384, {{"schedule", "bulk"}, {"bulk_pool", "1"}}).front().entry.find("_pooled") ==
          std::string::npos);
    // Without schedule=bulk, with rows split over clusters, other sizes, and the widths it is
    // not built for (auto's one chunk a thread at 4096 columns).
    CHECK_THROWS_AS(plan_of(op, DType::BF16, 2048, 16384, {{"bulk_pool", "2"}}), std::invalid_argument);
    CHECK_THROWS_AS(plan_of(op, DType::BF16, 2048, 16384, pooled({{"bulk_cluster", "2"}})),
                    std::invalid_argument);
    CHECK_THROWS_AS(plan_of(op, DType::BF16, 2048, 16384, {{"schedule", "bulk"}, {"bulk_pool", "4"}}),
                    std::invalid_argument);
    CHECK_THROWS_AS(plan_of(op, DType::BF16, 2048, 4096, pooled()), std::invalid_argument);
    CHECK_THROWS_AS(plan_of(op, DType::BF16, 2048, 16384, pooled({{"bulk_threads", "128"}})),
                    std::invalid_argument);
  }
}
