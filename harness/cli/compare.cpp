// `ladder compare OLD.json NEW.json`: which rung regressed between two runs, at which stage,
// and by how much (exit 1 when any rung regressed); or, for two bench documents, each case's
// times before and after, or with --fractions its fractions of each run's copy ceiling (exit 1
// when a case timed before is not timed after); or, for two every-build documents, the builds
// whose registers or memory moved, and those whose machine code changed (exit 1 when a build
// compiled before is not compiled after).
#include <iostream>

#include "harness/cli/commands.h"
#include "harness/report/bench_compare.h"
#include "harness/report/build_resources.h"
#include "harness/report/compare.h"

namespace ladder::cli {

void add_compare(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("compare", "compare two run documents (ladder run --json) rung by rung, or two bench documents (ladder bench --json) case by case");
  auto files = std::make_shared<std::vector<std::string>>();
  cmd->add_option("runs", *files, "OLD.json NEW.json")->required()->expected(2);
  auto across = std::make_shared<bool>(false);
  cmd->add_flag("--across-variants", *across,
                "bench documents: match cases without their variant (one schedule against another on the same shapes)");
  auto fractions = std::make_shared<bool>(false);
  cmd->add_flag("--fractions", *fractions,
                "bench documents: compare each case's fraction of its own run's copy ceiling rather than its times "
                "(runs on different GPUs, or on shares of the SMs: ladder bench --sms)");
  cmd->callback([files, across, fractions, &exit_code] {
    try {
      const nlohmann::json a = read_json_file((*files)[0]), b = read_json_file((*files)[1]);
      // Whether the documents are of the kind `is_kind` tells: both are, or neither; one alone is
      // an error naming the other file.
      auto both_of_kind = [&](auto is_kind, const std::string& kind) {
        if (!is_kind(a) && !is_kind(b)) return false;
        for (std::size_t i = 0; i < 2; ++i)
          if (!is_kind(i == 0 ? a : b)) throw std::runtime_error((*files)[i] + ": not " + kind + ", as the other is");
        return true;
      };
      // Reads each document whole before comparing, so that an error is given with its file's name.
      auto check_each = [&](auto check) {
        for (std::size_t i = 0; i < 2; ++i) {
          try {
            check(i == 0 ? a : b);
          } catch (const std::exception& e) {
            throw std::runtime_error((*files)[i] + ": " + e.what());
          }
        }
      };
      auto lost_any = [](const auto& changes) {
        return std::any_of(changes.begin(), changes.end(), [](const auto& c) { return c.lost(); });
      };
      if (both_of_kind(report::is_every_build_document,
                       "an every-build document (ladder bench --resources --every-build --json)")) {
        if (*across || *fractions)
          throw std::invalid_argument(std::string(*across ? "--across-variants" : "--fractions") +
                                      " compares bench documents' cases; these list builds");
        check_each(report::check_every_build_document);
        const auto changes = report::compare_builds(a, b);
        std::cout << report::build_compare_table(changes, a, b)
                  << report::code_compare_table(report::compare_code(a, b));
        exit_code = lost_any(changes) ? kExitFailure : kExitOk;
        return;
      }
      if (both_of_kind(is_bench_document, "a bench document (ladder bench --json)")) {
        check_each(check_bench_document);
        const auto changes = compare_benches(a, b, *across);
        std::cout << bench_compare_table(changes, a, b, *fractions ? CompareBy::Fraction : CompareBy::Time);
        exit_code = lost_any(changes) ? kExitFailure : kExitOk;
        return;
      }
      if (*across || *fractions)
        throw std::invalid_argument(std::string(*across ? "--across-variants" : "--fractions") +
                                    " compares bench documents; these are run documents");
      const RunDocument before = load_run_document((*files)[0]);
      const RunDocument after = load_run_document((*files)[1]);
      const auto changes = compare_runs(before, after);
      std::cout << compare_table(changes, before, after);
      const bool regressed = std::any_of(changes.begin(), changes.end(),
                                         [](const RungChange& c) { return c.change == Change::Regressed; });
      exit_code = regressed ? kExitFailure : kExitOk;
    } catch (const std::exception& e) {
      std::cerr << "ladder compare: " << e.what() << "\n";
      exit_code = kExitHarness;
    }
  });
}

}  // namespace ladder::cli
