// scripts/cupy_examples.py runs kernels/README.md's CuPy blocks on a GPU and checks their outputs.
// Here, without a GPU: it finds the blocks, its checks pass fp32 results and fail each kind of
// damage (its --selftest, numpy standing in for CuPy), and with no CuPy it says so and exits 2
// rather than report a pass.
#include <string>

#include "tests/catch.h"
#include "tests/cli_helpers.h"

using namespace ladder_test;

namespace {

std::string script() { return "python3 " + source_path("scripts/cupy_examples.py"); }

// The interpreter the selftest runs under: python3, or Debian's where python3 is another one
// (pyenv) without numpy; scripts/bootstrap installs Debian's python3-numpy.
std::string python_with_numpy() {
  for (const std::string py : {"python3", "/usr/bin/python3"})
    if (run_command(py + " -c 'import numpy'").exit_code == 0) return py;
  return "";
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("cupy_examples.py finds the README's CuPy blocks, each launching a kernel", "[docs][scripts]") {
  const Outcome o = run_command(script() + " --list");
  INFO(o.output);
  REQUIRE(o.exit_code == 0);
  CHECK(count(o.output, "# kernels/README.md:") == 8);
  CHECK(count(o.output, "kernel = build(src, name)") >= 8);
  CHECK(o.output.find("cp.from_dlpack") != std::string::npos);  // the PyTorch block
  // One block or more for each of the six ops, forward and backward.
  for (const char* entry : {"ladder::rmsnorm_fwd<", "ladder::add_rmsnorm_fwd<", "ladder::layernorm_fwd<",
                            "ladder::rmsnorm_bwd<", "ladder::add_rmsnorm_bwd<", "ladder::layernorm_bwd<"})
    CHECK(o.output.find(entry) != std::string::npos);
}

TEST_CASE("cupy_examples.py's checks pass right results and fail damaged ones", "[docs][scripts]") {
  const std::string py = python_with_numpy();
  if (py.empty()) FAIL("no python3 with numpy (scripts/bootstrap installs Debian's python3-numpy)");
  const Outcome o = run_command(py + " " + source_path("scripts/cupy_examples.py") + " --selftest");
  INFO(o.output);
  CHECK(o.exit_code == 0);
  CHECK(o.output.find("selftest: PASS") != std::string::npos);
  CHECK(count(o.output, "fp32 results pass") == 6);
  CHECK(count(o.output, " fails: ok") >= 38);
  CHECK(o.output.find("WRONG") == std::string::npos);
}

TEST_CASE("cupy_examples.py without CuPy or a GPU runs nothing and does not pass", "[docs][scripts]") {
  // This machine may have CuPy and a GPU; an interpreter flag that hides site-packages cannot
  // hide one installed elsewhere, so a stub module named cupy that fails on import stands in.
  const std::string dir = temp_path("no-cupy");
  run_command("mkdir -p " + dir + " && printf 'raise ImportError(\"stub\")\\n' > " + dir + "/cupy.py");
  const Outcome o = run_command("PYTHONPATH=" + dir + " " + script());
  INFO(o.output);
  CHECK(o.exit_code == 2);
  CHECK(o.output.find("SKIPPED: CuPy cannot run here") != std::string::npos);
}
