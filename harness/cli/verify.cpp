// `ladder verify [KERNEL...]`: every production kernel, dtype and variant over the default shape
// grid, each rung in its own child with every sentinel, redzone, clobber and determinism check,
// against the fp64 oracles. Prints the worst error per kernel, dtype and shape. The fixture cases
// (fixtures/*.json) run too, each on its own exact inputs (harness/fixtures/fixture_rungs.h).
#include <iostream>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "harness/cli/commands.h"
#include "harness/cli/run_common.h"
#include "harness/cli/verify_grid.h"
#include "harness/fixtures/fixture_rungs.h"
#include "harness/kernels/catalog.h"
#include "harness/kernels/kernel_sources.h"
#include "harness/ladder/serialize.h"
#include "harness/report/printers.h"
#include "harness/report/run_document.h"

namespace ladder::cli {
namespace {

std::string variant_text(const Variant& v) {
  std::string s;
  for (const auto& [k, val] : v) s += fmt::format("{}{}_{}", s.empty() ? "" : "_", k, val);
  return s;
}

Rung kernel_rung(const std::string& op, DType dt, const Variant& v, std::vector<Case> cases, double eps) {
  Rung r;
  r.name = fmt::format("{}_{}{}{}", op, label(dt), v.empty() ? "" : "_", variant_text(v));
  r.adds = v.empty() ? "default variant, full grid" : "variant " + variant_text(v);
  r.features = {"production_kernel", op, std::string(label(dt))};
  r.kernel = KernelRef{op, dt, v, {}};
  r.scalars = {{"eps", eps}};
  r.deterministic = true;  // our kernels claim bitwise determinism (no atomics)
  r.cases = std::move(cases);
  r.seed = std::hash<std::string>{}(r.name);
  return r;
}

std::string ratio_cell(const RungResult& r, std::int64_t rows, std::int64_t d) {
  for (const auto& c : r.cases) {
    if (c.shape.at("rows") != rows || c.shape.at("d") != d) continue;
    if (c.failure) return std::string(label(*c.failure));
    if (c.skipped) return "skip";
    double worst = 0;
    for (const auto& n : c.numerics) worst = std::max(worst, n.worst_ratio);
    return fmt::format("{:.2f}", worst);
  }
  return "-";
}

// The worst error / bound of every default-variant rung, one table per op and dtype.
void print_worst_table(const RunDocument& doc) {
  std::cout << "\nworst error / bound per shape (default variants; rows down, d across):\n";
  for (const auto& r : doc.rungs) {
    if (r.adds != "default variant, full grid") continue;
    std::cout << fmt::format("{}\n  {:>6}", r.name, "rows");
    for (auto d : kHidden) std::cout << fmt::format(" {:>9}", d);
    std::cout << "\n";
    for (auto rows : kRows) {
      std::cout << fmt::format("  {:>6}", rows);
      for (auto d : kHidden) std::cout << fmt::format(" {:>9}", ratio_cell(r, rows, d));
      std::cout << "\n";
    }
  }
}

// The seeded-input rungs: the full grid for each op's default variant, a large-eps rung, and the
// small shapes for every other variant.
std::vector<Rung> grid_rungs(const std::vector<std::string>& ops, const std::string& dtype, bool quick) {
  std::vector<Rung> rungs;
  for (const auto& op : ops)
    for (DType dt : {DType::F32, DType::F16, DType::BF16}) {
      if (!dtype.empty() && label(dt) != dtype) continue;
      std::vector<Case> grid;
      for (auto rows : kRows)
        if (!(quick && rows == 4096))
          for (auto d : kHidden) grid.push_back({{"rows", rows}, {"d", d}});
      for (auto [rows, d] : kSmallShapes) grid.push_back({{"rows", rows}, {"d", d}});
      grid.push_back({{"rows", 0}, {"d", 64}});
      rungs.push_back(kernel_rung(op, dt, {}, grid, 1e-5));
      // eps large enough to matter: catches eps dropped or placed outside the sqrt.
      rungs.push_back(kernel_rung(op, dt, {}, {{{"rows", 7}, {"d", 8}}, {{"rows", 83}, {"d", 769}}}, 0.1));
      rungs.back().name += "_eps_large";
      rungs.back().adds = "eps = 0.1: catches eps dropped or outside the sqrt";
      std::vector<Case> small;
      for (auto [rows, d] : kSmallShapes) small.push_back({{"rows", rows}, {"d", d}});
      for (const auto& v : variants_of(op)) {
        std::vector<Case> cases = small;
        for (auto [rows, d] : extra_shapes_of(v)) cases.push_back({{"rows", rows}, {"d", d}});
        rungs.push_back(kernel_rung(op, dt, v, cases, 1e-6));
      }
    }
  return rungs;
}

// The fixture rungs for the selected ops and dtype, with every skipped case printed and counted.
// Returns false (after printing why) for a malformed fixture file.
bool add_fixture_rungs(const std::vector<std::string>& files, const std::vector<std::string>& ops,
                       const std::string& dtype, std::vector<Rung>& rungs) {
  fixtures::FixtureRungs fx;
  try {
    // Not fixtures/gpu/: it holds the same inputs and case ids, with GPU-made references.
    fx = fixtures::load_fixture_rungs(files.empty() ? fixtures::fixture_paths(false) : files);
  } catch (const fixtures::FixtureError& e) {
    std::cerr << "ladder verify: " << e.what() << "\n";
    return false;
  }
  std::size_t kept = 0;
  for (auto& r : fx.rungs)
    if (std::count(ops.begin(), ops.end(), r.kernel->op) && (dtype.empty() || label(r.kernel->dtype) == dtype)) {
      rungs.push_back(std::move(r));
      ++kept;
    }
  std::cout << fmt::format("fixture cases: {} read, {} mapped to {} rungs ({} selected), {} skipped\n", fx.cases,
                           fx.mapped_cases, fx.rungs.size(), kept, fx.skipped.size());
  for (const auto& s : fx.skipped)
    std::cout << fmt::format("  skipped fixture case {} ({}): {}\n", s.case_id, s.file, s.reason);
  return true;
}

}  // namespace

void add_verify(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("verify", "verify the production kernels in isolation against the fp64 oracles");
  struct State {
    CommonOptions common;
    std::vector<std::string> ops;
    std::string dtype;
    bool quick = false;
    std::vector<std::string> fixture_files;
    bool no_fixtures = false, fixtures_only = false;
    std::string worst_from, write_ladder;
  };
  auto st = std::make_shared<State>();
  st->common.runner.timeout_s = 300;
  add_common_options(*cmd, st->common);
  cmd->add_option("kernels", st->ops, "ops to verify (default: all)");
  cmd->add_option("--dtype", st->dtype, "only this dtype (f32, f16, bf16)")->transform(dtype_option());
  cmd->add_flag("--quick", st->quick, "leave out the 4096-row shapes");
  cmd->add_option("--fixtures", st->fixture_files,
                  "fixture files whose cases run on their own inputs (default: fixtures/*.json; repeatable: one "
                  "file a --fixtures)")
      ->allow_extra_args(false);
  auto* no_fx = cmd->add_flag("--no-fixtures", st->no_fixtures, "leave out the fixture cases");
  cmd->add_flag("--fixtures-only", st->fixtures_only, "run only the fixture cases")->excludes(no_fx);
  cmd->add_option("--worst-from", st->worst_from,
                  "print the worst-error tables of a finished verify run (its --json document); runs nothing")
      ->check(CLI::ExistingFile);
  cmd->add_option("--write-ladder", st->write_ladder,
                  "write the selected rungs as a ladder manifest to FILE and run nothing: `ladder run`, `sweep`, "
                  "`repro` and `bisect` then take them with --ladder FILE");
  cmd->callback([st, &exit_code] {
    if (!st->worst_from.empty()) {
      try {
        const RunDocument doc = load_run_document(st->worst_from);
        // A `ladder run` document has no grid: an empty table would read as "nothing failed".
        if (doc.ladder_name != "verify")
          throw std::runtime_error(st->worst_from + ": a run of ladder '" + doc.ladder_name +
                                   "', not of ladder verify");
        print_worst_table(doc);
      } catch (const std::exception& e) {
        std::cerr << "ladder verify: " << e.what() << "\n";
        exit_code = kExitHarness;
      }
      return;
    }
    const auto all_ops = kernels::ops();
    std::vector<std::string> ops;
    for (const auto& o : all_ops)
      if (o != "column_sum" && (st->ops.empty() || std::count(st->ops.begin(), st->ops.end(), o))) ops.push_back(o);
    for (const auto& o : st->ops)
      if (!std::count(all_ops.begin(), all_ops.end(), o)) {
        std::cerr << "ladder verify: unknown kernel '" << o << "'\n";
        exit_code = kExitHarness;
        return;
      }
    try {
      refuse_overwriting_inputs(st->common, st->fixture_files.empty() ? fixtures::fixture_paths(false) : st->fixture_files);
    } catch (const std::exception& e) {
      std::cerr << "ladder verify: " << e.what() << "\n";
      exit_code = kExitHarness;
      return;
    }
    std::vector<Rung> rungs;
    if (!st->fixtures_only) rungs = grid_rungs(ops, st->dtype, st->quick);
    if (!st->no_fixtures && !add_fixture_rungs(st->fixture_files, ops, st->dtype, rungs)) {
      exit_code = kExitHarness;
      return;
    }
    if (!st->write_ladder.empty()) {
      nlohmann::json lad = {{"schema_version", 1},
                            {"ladder", "verify"},
                            {"description", "the rungs of `" + command_line() + "`"},
                            {"rungs", nlohmann::json::array()}};
      // Each rung keeps the time verify gives its child: `ladder run`'s own default is for the
      // probe ladders, and a 4096-row case with its fp64 oracle outlasts it under load.
      for (Rung r : rungs) {
        if (r.timeout_s <= 0) r.timeout_s = st->common.runner.timeout_s;
        lad["rungs"].push_back(rung_to_json(r));
      }
      try {
        write_file_atomic(st->write_ladder, lad.dump(1) + "\n");
      } catch (const std::exception& e) {
        std::cerr << "ladder verify: " << e.what() << "\n";
        exit_code = kExitHarness;
        return;
      }
      std::cout << fmt::format("wrote {} rungs to {}\n", rungs.size(), st->write_ladder);
      exit_code = kExitOk;
      return;
    }
    install_interrupt_handler();
    RunDocument doc;
    doc.command = command_line();
    doc.ladder_name = "verify";
    doc.ladder_file = "(production kernels)";
    doc.extra["kernels"] = kernels::to_json(kernels::kernel_sources());
    run_and_print(rungs, st->common, doc);

    if (!st->fixtures_only) print_worst_table(doc);
    exit_code = doc.exit_code(st->common.git_bisect);
  });
}

}  // namespace ladder::cli
