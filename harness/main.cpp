// The CLI entry: subcommands only. Hidden child modes start before CLI11 so a child's start-up
// stays small beside the context creation it exists to isolate.
#include <signal.h>

#include <chrono>
#include <cstring>
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "harness/bench/bench_child.h"
#include "harness/cli/commands.h"
#include "harness/core/verdict.h"
#include "harness/isolate/child.h"
#include "harness/toolchain/driver.h"

namespace {

int child_mode(int argc, char** argv) {
  ladder::isolate::ChildOptions o;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(a + " needs a value");
      return argv[++i];
    };
    if (a == "--first-case") o.first_case = std::stoul(value());
    else if (a == "--arch") o.arch = value();
    else if (a == "--nvrtc") o.nvrtc_path = value();
    else if (a == "--cache-dir") o.cache_dir = value();
    else if (a == "--compile-only") o.compile_only = true;
    else if (a == "--no-cache") o.no_cache = true;
    else if (a == "--bare-allocations") o.bare_allocations = true;
    else throw std::invalid_argument("unknown child option " + a);
  }
  return ladder::isolate::child_main(o);
}

// A child that only initializes CUDA and creates a context: the bare cost of isolation.
int context_probe() {
  const auto t0 = std::chrono::steady_clock::now();
  nlohmann::json j = {{"type", "context"}, {"ok", false}};
  try {
    auto ctx = ladder::toolchain::Context::create(0);
    j["ok"] = true;
    j["gpu"] = ctx.device().name;
  } catch (const std::exception& e) {
    j["error"] = e.what();
  }
  j["ms"] = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  const std::string line = j.dump() + "\n";
  return ::write(3, line.data(), line.size()) < 0 ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && std::strcmp(argv[1], "__child") == 0) {
    try {
      return child_mode(argc, argv);
    } catch (const std::exception& e) {
      std::cerr << "ladder __child: " << e.what() << "\n";
      return ladder::kExitHarness;
    }
  }
  if (argc >= 3 && std::strcmp(argv[1], "__selftest-child") == 0)
    return ladder::isolate::selftest_child_main(argv[2], 3);
  if (argc >= 2 && std::strcmp(argv[1], "__context-probe") == 0) return context_probe();
  if (argc >= 2 && std::strcmp(argv[1], "__bench-child") == 0) {
    ladder::bench::BenchChildOptions o;
    for (int i = 2; i + 1 < argc; i += 2) {
      if (std::strcmp(argv[i], "--arch") == 0) o.arch = argv[i + 1];
      else if (std::strcmp(argv[i], "--nvrtc") == 0) o.nvrtc_path = argv[i + 1];
    }
    return ladder::bench::bench_child_main(o);
  }

  ::signal(SIGPIPE, SIG_IGN);  // a child that dies early must not take the parent with it
  CLI::App app{"ladder: compile CUDA kernels with NVRTC, run each rung in its own process, prove outputs right"};
  app.require_subcommand(1);
  int exit_code = ladder::kExitOk;
  ladder::cli::add_list(app, exit_code);
  ladder::cli::add_run(app, exit_code);
  ladder::cli::add_verify(app, exit_code);
  ladder::cli::add_bench(app, exit_code);
  ladder::cli::add_fixtures(app, exit_code);
  ladder::cli::add_report(app, exit_code);
  ladder::cli::add_compare(app, exit_code);
  ladder::cli::add_bisect(app, exit_code);
  ladder::cli::add_sweep(app, exit_code);
  ladder::cli::add_repro(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : ladder::kExitHarness;
  }
  return exit_code;
}
