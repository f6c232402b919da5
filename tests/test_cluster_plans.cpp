// layernorm_bwd's bulk kernel with each row split over a thread-block cluster
// (kernels/layernorm_bwd_bulk.cuh, layernorm_bwd_bulk_cluster): its entry, the block's slice of
// the row, the grid as whole clusters, one partial row a cluster, how the cluster's blocks
// exchange their row sums, and the keys it refuses.
// No GPU needed.
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>

#include "tests/catch.h"
#include "tests/plan_helpers.h"

using namespace ladder_test;

namespace {

std::vector<KernelLaunch> layernorm_bwd(DType dt, std::int64_t rows, std::int64_t d,
                                        std::map<std::string, std::string> v = {},
                                        const DeviceLimits& device = DeviceLimits::h200()) {
  return plan_checked({"layernorm_bwd", dt, v}, {{"rows", rows}, {"d", d}}, device);
}

// The partial rows the row kernel writes and the reduce adds: both must be the clusters, where
// the kernel's own reduce takes them (reduce=grid) as where column_sum_pair does.
void check_partials(const std::vector<KernelLaunch>& plan, std::int64_t parts) {
  const KernelLaunch& L = plan.front();
  for (const char* name : {"dgamma_partial", "dbeta_partial"}) {
    INFO(name);
    const auto* partial = find_buffer(L, name);
    REQUIRE(partial != nullptr);
    CHECK(partial->rows == parts);
  }
  if (L.cooperative) {  // reduce=grid (auto with clusters): the kernel adds them itself
    CHECK(plan.size() == 1);
    CHECK(L.grid[0] / 2 == parts);
    return;
  }
  REQUIRE(plan.size() == 2);
  CHECK(plan[1].entry.find("column_sum_pair") != std::string::npos);
  CHECK(plan[1].args[4].value == static_cast<double>(parts));
}

}  // namespace

TEST_CASE("layernorm_bwd: auto splits rows of more than 2048 chunks over clusters of two blocks", "[kernels]") {
  ladder::register_builtin_oracles();
  // f16 d = 32768 (4096 chunks): two blocks a row, each with 2048 chunks of it, four a thread
  // in 512 threads; three 64 KiB stages of its slice of x and dy, and its 32 KiB of gamma.
  const auto wide = layernorm_bwd(DType::F16, 1024, 32768);
  const KernelLaunch& L = wide.front();
  CHECK(L.entry == "ladder::layernorm_bwd_bulk_cluster<__half, 4, 512, 2>");
  CHECK(L.source.find("layernorm_bwd_bulk.cuh") != std::string::npos);
  CHECK(L.block[0] == 512);
  CHECK(L.grid[0] == 132);  // 66 clusters of two
  CHECK(L.shared_bytes == 3u * 2 * 16384 * 2 + 16384 * 2);
  check_partials(wide, 66);
  // fp32 d = 16384 is as many chunks: the same split.
  const auto f32 = layernorm_bwd(DType::F32, 1024, 16384);
  CHECK(f32.front().entry == "ladder::layernorm_bwd_bulk_cluster<float, 4, 512, 2>");
  check_partials(f32, 66);
  // Fewer rows than clusters: a cluster a row.
  const auto few = layernorm_bwd(DType::BF16, 7, 32768);
  CHECK(few.front().grid[0] == 14);
  check_partials(few, 7);
  // 2048 chunks or fewer: one block a row, as before (16-bit rows then pool their sums over two
  // blocks, test_pool_plans.cpp; pinned out here).
  const auto plain = layernorm_bwd(DType::BF16, 2048, 16384, {{"schedule", "bulk"}, {"bulk_pool", "1"}});
  CHECK(plain.front().entry == "ladder::layernorm_bwd_bulk<__nv_bfloat16, 4, 512>");
  check_partials(plain, 132);
  // Not where the bulk path is closed: rows off the grid, or a device before sm_90.
  CHECK(layernorm_bwd(DType::F16, 1024, 32768, {{"strided", "odd"}}).front().entry.find("_bulk") ==
        std::string::npos);
  CHECK(layernorm_bwd(DType::F16, 1024, 32768, {}, DeviceLimits::a100()).front().entry.find("_bulk") ==
        std::string::npos);
}

TEST_CASE("layernorm_bwd: bulk_cluster pins the cluster, the grid stays whole clusters", "[kernels]") {
  ladder::register_builtin_oracles();
  auto bulk = [](DType dt, std::int64_t rows, std::int64_t d, std::map<std::string, std::string> v) {
    v["schedule"] = "bulk";
    return layernorm_bwd(dt, rows, d, v);
  };
  // Two blocks a row of bf16 d = 16384, where auto keeps one: 1024 chunks each, one a thread.
  const auto two = bulk(DType::BF16, 2048, 16384, {{"bulk_cluster", "2"}});
  CHECK(two.front().entry == "ladder::layernorm_bwd_bulk_cluster<__nv_bfloat16, 1, 1024, 2>");
  CHECK(two.front().grid[0] == 132);
  check_partials(two, 66);
  // One: the plain kernel even where auto would split.
  CHECK(bulk(DType::F16, 1024, 32768, {{"bulk_cluster", "1"}}).front().entry ==
        "ladder::layernorm_bwd_bulk<__half, 4, 1024>");
  // Three clusters for tests (bulk_grid=3), each of two blocks.
  const auto three = bulk(DType::BF16, 67, 4096, {{"bulk_cluster", "2"}, {"bulk_grid", "3"}});
  CHECK(three.front().grid[0] == 6);
  check_partials(three, 3);
  // Rows that are no whole number of chunks in each block (d = 8 bf16: one chunk): the
  // element-wise path, no stages; the grid is still whole clusters.
  const auto narrow = bulk(DType::BF16, 83, 8, {{"bulk_cluster", "2"}});
  CHECK(narrow.front().shared_bytes == 0);
  CHECK(narrow.front().grid[0] % 2 == 0);
  // Refused: without schedule=bulk, an unknown size, and on the forward op (no cluster kernel).
  CHECK_THROWS_AS(layernorm_bwd(DType::BF16, 2048, 16384, {{"bulk_cluster", "2"}}), std::invalid_argument);
  CHECK_THROWS_AS(bulk(DType::BF16, 2048, 16384, {{"bulk_cluster", "3"}}), std::invalid_argument);
  CHECK_THROWS_AS(bulk(DType::BF16, 2048, 16384, {{"bulk_cluster", "4"}}), std::invalid_argument);
  CHECK_THROWS_AS(plan_checked({"layernorm", DType::BF16, {{"schedule", "bulk"}, {"bulk_cluster", "2"}}},
                               {{"rows", 2048}, {"d", 16384}}),
                  std::invalid_argument);
}

TEST_CASE("rmsnorm_bwd and add_rmsnorm_bwd: the same split, one dw partial row a cluster", "[kernels]") {
  ladder::register_builtin_oracles();
  auto plan = [](const std::string& op, DType dt, std::int64_t rows, std::int64_t d,
                 std::map<std::string, std::string> v = {}) {
    return plan_checked({op, dt, v}, {{"rows", rows}, {"d", d}});
  };
  auto dw_parts = [](const std::vector<KernelLaunch>& p) {
    REQUIRE(p.size() == 2);
    CHECK(find_buffer(p.front(), "dw_partial")->rows == static_cast<std::int64_t>(p[1].args[2].value));
    return p[1].args[2].value;  // column_sum's parts
  };
  // bf16 d = 32768: two blocks a row of 2048 chunks each, three stages of x and dy slices.
  const auto rms = plan("rmsnorm_bwd", DType::BF16, 1024, 32768);
  CHECK(rms.front().entry == "ladder::rmsnorm_bwd_bulk_cluster<__nv_bfloat16, 4, 512, 2>");
  CHECK(rms.front().grid[0] == 132);
  CHECK(rms.front().shared_bytes == 3u * 2 * 16384 * 2 + 16384 * 2);
  CHECK(dw_parts(rms) == 66.0);
  const auto add = plan("add_rmsnorm_bwd", DType::F32, 1024, 16384);
  CHECK(add.front().entry == "ladder::add_rmsnorm_bwd_bulk_cluster<float, 4, 512, 2>");
  CHECK(dw_parts(add) == 66.0);
  // Pinned, where auto keeps one block; three clusters for tests.
  const auto three = plan("rmsnorm_bwd", DType::BF16, 67, 16384,
                          {{"schedule", "bulk"}, {"bulk_cluster", "2"}, {"bulk_grid", "3"}});
  CHECK(three.front().entry == "ladder::rmsnorm_bwd_bulk_cluster<__nv_bfloat16, 1, 1024, 2>");
  CHECK(three.front().grid[0] == 6);
  CHECK(dw_parts(three) == 3.0);
  // 2048 chunks: one block a row.
  CHECK(plan("rmsnorm_bwd", DType::BF16, 2048, 16384).front().entry ==
        "ladder::rmsnorm_bwd_bulk<__nv_bfloat16, 4, 512>");
  // rmsnorm_bwd fp32 at 4096 chunks splits too (faster with the st.async exchange, call 215),
  // and bulk_cluster=1 keeps one block.
  const auto f32 = plan("rmsnorm_bwd", DType::F32, 1024, 16384);
  CHECK(f32.front().entry == "ladder::rmsnorm_bwd_bulk_cluster<float, 4, 512, 2>");
  CHECK(dw_parts(f32) == 66.0);
  CHECK(plan("rmsnorm_bwd", DType::F32, 1024, 16384, {{"schedule", "bulk"}, {"bulk_cluster", "1"}})
            .front()
            .entry == "ladder::rmsnorm_bwd_bulk<float, 4, 1024>");
}

TEST_CASE("cluster_exchange: st.async by default, a barrier when pinned, only with clusters", "[kernels]") {
  ladder::register_builtin_oracles();
  auto entry = [](const std::string& op, DType dt, std::int64_t rows, std::int64_t d,
                  std::map<std::string, std::string> v = {}) {
    return plan_checked({op, dt, v}, {{"rows", rows}, {"d", d}}).front().entry;
  };
  // auto: async, the entries' default (no trailing template argument).
  CHECK(entry("layernorm_bwd", DType::BF16, 1024, 32768) ==
        "ladder::layernorm_bwd_bulk_cluster<__nv_bfloat16, 4, 512, 2>");
  CHECK(entry("layernorm_bwd", DType::F32, 1024, 16384) ==
        "ladder::layernorm_bwd_bulk_cluster<float, 4, 512, 2>");
  CHECK(entry("add_rmsnorm_bwd", DType::F32, 1024, 16384) ==
        "ladder::add_rmsnorm_bwd_bulk_cluster<float, 4, 512, 2>");
  // Pinned either way.
  CHECK(entry("layernorm_bwd", DType::F32, 1024, 16384, {{"cluster_exchange", "async"}}) ==
        "ladder::layernorm_bwd_bulk_cluster<float, 4, 512, 2>");
  CHECK(entry("layernorm_bwd", DType::F32, 1024, 16384, {{"cluster_exchange", "barrier"}}) ==
        "ladder::layernorm_bwd_bulk_cluster<float, 4, 512, 2, false>");
  CHECK(entry("rmsnorm_bwd", DType::BF16, 1024, 32768, {{"cluster_exchange", "barrier"}}) ==
        "ladder::rmsnorm_bwd_bulk_cluster<__nv_bfloat16, 4, 512, 2, false>");
  CHECK(entry("add_rmsnorm_bwd", DType::BF16, 67, 4096,
              {{"schedule", "bulk"}, {"bulk_cluster", "2"}, {"cluster_exchange", "barrier"}}) ==
        "ladder::add_rmsnorm_bwd_bulk_cluster<__nv_bfloat16, 1, 256, 2, false>");
  // Refused without clusters (auto keeps one block a row at 16384 bf16, or pinned to one), and
  // an unknown form.
  CHECK_THROWS_AS(entry("rmsnorm_bwd", DType::BF16, 2048, 16384, {{"cluster_exchange", "async"}}),
                  std::invalid_argument);
  CHECK_THROWS_AS(entry("layernorm_bwd", DType::F16, 1024, 32768,
                        {{"schedule", "bulk"}, {"bulk_cluster", "1"}, {"cluster_exchange", "barrier"}}),
                  std::invalid_argument);
  CHECK_THROWS_AS(entry("layernorm_bwd", DType::F16, 1024, 32768, {{"cluster_exchange", "dsmem"}}),
                  std::invalid_argument);
  // Rows auto would split, but off the bulk path (odd strides): no cluster, so refused too.
  CHECK_THROWS_AS(entry("layernorm_bwd", DType::F16, 1024, 32768,
                        {{"strided", "odd"}, {"cluster_exchange", "barrier"}}),
                  std::invalid_argument);
}
