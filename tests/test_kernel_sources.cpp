// Which kernel sources a run used: the digest of a kernels folder, and its place in bench and
// verify documents and the report. One binary over two trees (an A/B through LADDER_KERNELS_DIR)
// must give two documents that say which tree each ran.
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/kernels/catalog.h"
#include "harness/kernels/kernel_sources.h"
#include "harness/report/bench_markdown.h"
#include "harness/report/printers.h"
#include "harness/report/run_document.h"
#include "tests/catch.h"
#include "tests/cli_helpers.h"

using namespace ladder_test;
namespace fs = std::filesystem;

namespace {

void write(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
}

}  // namespace

TEST_CASE("kernel sources: the digest follows every .cuh and .h by name and content, nothing else",
          "[kernels]") {
  const fs::path dir = temp_path("digest-tree");
  fs::remove_all(dir);
  fs::create_directories(dir);
  write(dir / "a.cuh", "__device__ int a;\n");
  write(dir / "b.h", "#pragma once\n");
  write(dir / "README.md", "docs\n");
  const std::string first = ladder::kernels::sources_digest(dir.string());
  CHECK(first.size() == 32);
  CHECK(ladder::kernels::sources_digest(dir.string()) == first);  // stable

  write(dir / "README.md", "other docs\n");
  CHECK(ladder::kernels::sources_digest(dir.string()) == first);  // not a source

  write(dir / "a.cuh", "__device__ int a ;\n");
  const std::string edited = ladder::kernels::sources_digest(dir.string());
  CHECK(edited != first);

  fs::rename(dir / "a.cuh", dir / "c.cuh");
  CHECK(ladder::kernels::sources_digest(dir.string()) != edited);  // a renamed file is another tree

  fs::remove_all(dir);
  CHECK_THROWS_WITH(ladder::kernels::sources_digest(dir.string()), has_substr(dir.string()));
}

TEST_CASE("kernel sources: the checkout's kernels/ by default, LADDER_KERNELS_DIR when set", "[kernels]") {
  const auto here = ladder::kernels::kernel_sources();
  if (std::getenv("LADDER_KERNELS_DIR") == nullptr) {
    CHECK_FALSE(here.from_env);
    CHECK(here.dir == source_path("kernels"));
  }
  CHECK(here.error.empty());
  CHECK(here.digest == ladder::kernels::sources_digest(ladder::kernels::kernels_dir()));
  const auto j = ladder::kernels::to_json(here);
  CHECK(j.at("digest") == here.digest);
  CHECK_FALSE(j.contains("error"));
}

TEST_CASE("kernel sources: bench documents name their tree and the report shows it", "[cli][nvrtc]") {
  // One binary over a copy of kernels/ with one header changed: the two documents differ in the
  // digest alone, and the copy is marked as named by the environment.
  const fs::path tree = temp_path("kernels-copy");
  fs::remove_all(tree);
  fs::copy(source_path("kernels"), tree, fs::copy_options::recursive);
  std::ofstream(tree / "norm_common.cuh", std::ios::app) << "// edited\n";
  const std::string main_json = temp_path("bench-main-tree.json"), copy_json = temp_path("bench-copy-tree.json");
  const auto main_run = run_ladder("bench rmsnorm --dtype bf16 --shape 64x1024 --resources --json " + main_json);
  const auto copy_run = run_command("LADDER_KERNELS_DIR=" + tree.string() + " " + std::string(LADDER_BINARY) +
                                    " bench rmsnorm --dtype bf16 --shape 64x1024 --resources --json " + copy_json);
  INFO(main_run.output << copy_run.output);
  REQUIRE(main_run.exit_code == 0);
  REQUIRE(copy_run.exit_code == 0);
  const auto main_doc = read_json(main_json), copy_doc = read_json(copy_json);
  CHECK(main_doc.at("kernels").at("from_env") == false);
  CHECK(copy_doc.at("kernels").at("from_env") == true);
  CHECK(copy_doc.at("kernels").at("dir") == tree.string());
  CHECK(main_doc.at("kernels").at("digest") != copy_doc.at("kernels").at("digest"));
  CHECK(main_doc.at("commit") == copy_doc.at("commit"));
  const std::string md = ladder::bench_markdown(copy_doc, "bench-copy-tree.json", nlohmann::json::object());
  CHECK_THAT(md, has_substr("- kernel sources: `" + tree.string() + "` (LADDER_KERNELS_DIR), digest " +
                            copy_doc["kernels"]["digest"].get<std::string>().substr(0, 12)));
  fs::remove_all(tree);
}

TEST_CASE("kernel sources: a document without them, or whose digest failed, says so", "[report]") {
  CHECK(ladder::kernel_sources_text(nlohmann::json::object()).empty());
  CHECK(ladder::kernel_sources_text(nlohmann::json{{"kernels", 3}}).empty());
  const nlohmann::json failed = {{"kernels", {{"dir", "/nowhere"}, {"from_env", true}, {"digest", ""},
                                              {"error", "kernel sources: cannot list /nowhere"}}}};
  CHECK(ladder::kernel_sources_text(failed) ==
        "`/nowhere` (LADDER_KERNELS_DIR), digest not taken: kernel sources: cannot list /nowhere");
}

TEST_CASE("kernel sources: a verify document's section in the report names them", "[report]") {
  ladder::RunDocument doc;
  doc.ladder_name = "verify";
  const std::string plain = ladder::markdown_run_section(doc, "verify");
  CHECK(plain.find("kernel sources") == std::string::npos);
  doc.extra["kernels"] = {{"dir", "/k"}, {"from_env", false}, {"digest", "00112233445566778899aabbccddeeff"}};
  CHECK_THAT(ladder::markdown_run_section(doc, "verify"), has_substr("- kernel sources: `/k`, digest 001122334455\n"));
}
