// `ladder repro RUNG --out DIR`: one case of a rung as a standalone reproducer (harness/repro/).
#include <algorithm>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "harness/cli/commands.h"
#include "harness/cli/run_common.h"
#include "harness/repro/writer.h"
#include "harness/report/envelope.h"

namespace ladder::cli {

void add_repro(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("repro", "write one case of a rung as a standalone reproducer (NVRTC + driver only)");
  struct State {
    std::string rung, out;
    std::vector<std::string> ladder_files, sets;
    std::size_t case_index = 0;
  };
  auto st = std::make_shared<State>();
  cmd->add_option("rung", st->rung, "the rung (its exact name)")->required();
  cmd->add_option("--out,-o", st->out, "folder to write (new or empty)")->required();
  cmd->add_option("--case", st->case_index, "which of the rung's cases (default 0, the first)");
  cmd->add_option("--set", st->sets, "NAME=VALUE: change one symbol of that case, e.g. --set d=17 (repeatable)")
      ->allow_extra_args(false);
  add_ladder_option(*cmd, st->ladder_files, "probes/ladder.json and probes/selftest.json");
  cmd->callback([st, &exit_code] {
    try {
      RunDocument doc;
      const auto all = load_ladders(ladder_files_or_builtin(st->ladder_files), doc);
      const Rung& target = find_rung(all, st->rung, doc);
      if (st->case_index >= target.cases.size())
        throw std::invalid_argument(fmt::format("rung {} has {} case(s); --case {} is past them", target.name,
                                                target.cases.size(), st->case_index));
      Case c = target.cases[st->case_index];
      for (const auto& s : st->sets) {
        const SweepDim d = parse_sweep_dim(s, "--set");
        if (d.values.size() != 1) throw std::invalid_argument(fmt::format("--set '{}': expected one value", s));
        if (!c.count(d.name))
          throw std::invalid_argument(fmt::format("--set {}: the rung's cases have no symbol '{}'", s, d.name));
        c[d.name] = d.values.front();
      }
      const auto written = repro::write_reproducer(target, c, st->out, current_commit());
      std::cout << fmt::format("wrote {} files to {} ({} at {})\n", written.size(), st->out, target.name, shape_text(c));
      std::cout << fmt::format("build and run: cd {} && ./build.sh && ./repro\n", st->out);
      exit_code = kExitOk;
    } catch (const std::exception& e) {
      std::cerr << "ladder repro: " << e.what() << "\n";
      exit_code = kExitHarness;
    }
  });
}

}  // namespace ladder::cli
