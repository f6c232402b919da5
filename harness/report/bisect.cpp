#include "harness/report/bisect.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

namespace ladder {
namespace {

// A rung clears its features of a failure at `stage` when it got past that stage: it passed, or it
// stopped at a later one (stages run in order: source, image, load, buffers, launch, checks).
bool got_past(const RungResult& r, Stage stage) {
  if (r.verdict == Verdict::Pass || r.verdict == Verdict::XPass) return true;
  if (r.verdict == Verdict::Unresolved) return false;  // harness breakage: evidence for nothing
  return static_cast<int>(r.stage) > static_cast<int>(stage);
}

std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out.empty() ? "-" : out;
}

// The rung past `failed`'s stage that shares the most features with it (ties: fewest others).
const RungResult* nearest_past(const RunDocument& doc, const RungResult& failed) {
  const std::set<std::string> mine(failed.features.begin(), failed.features.end());
  const RungResult* best = nullptr;
  std::size_t best_shared = 0, best_other = 0;
  for (const auto& r : doc.rungs) {
    if (&r == &failed || !got_past(r, failed.stage)) continue;
    std::size_t shared = 0, other = 0;
    for (const auto& f : r.features) (mine.count(f) ? shared : other) += 1;
    if (!best || shared > best_shared || (shared == best_shared && other < best_other)) {
      best = &r;
      best_shared = shared;
      best_other = other;
    }
  }
  return best;
}

}  // namespace

BisectResult bisect_run(const RunDocument& doc) {
  BisectResult b;
  for (const auto& r : doc.rungs) {
    if (r.verdict == Verdict::Skipped || r.verdict == Verdict::Unsupported) ++b.skipped;
    if (r.verdict == Verdict::Unresolved) b.unresolved.push_back(r.name);
  }
  // Feature -> the first rung that got past the stage at which `failed` stopped.
  auto exonerators = [&](const RungResult& failed) {
    std::map<std::string, std::string> by;
    for (const auto& r : doc.rungs)
      if (&r != &failed && got_past(r, failed.stage))
        for (const auto& f : r.features) by.emplace(f, r.name);
    return by;
  };
  auto suspects_of = [&](const RungResult& r) {
    const auto by = exonerators(r);
    std::vector<std::string> s;
    for (const auto& f : r.features)
      if (!by.count(f)) s.push_back(f);
    return s;
  };

  for (const auto& r : doc.rungs) {
    if (r.verdict != Verdict::Fail) continue;
    if (b.found) {
      b.later_failures.push_back({r.name, suspects_of(r)});
      continue;
    }
    b.found = true;
    b.first_failing = r.name;
    b.verdict = std::string(label(r.verdict));
    b.reason = r.reason ? std::string(label(*r.reason)) : "";
    b.stage = std::string(label(r.stage));
    b.failing_case = r.failing_case;
    b.evidence = r.evidence;
    const auto by = exonerators(r);
    for (const auto& x : doc.rungs) b.exonerating += &x != &r && got_past(x, r.stage) ? 1 : 0;
    for (const auto& f : r.features) {
      auto it = by.find(f);
      b.features.push_back({f, it == by.end() ? "" : it->second});
    }
    b.suspects = suspects_of(r);
    if (const RungResult* near = nearest_past(doc, r)) {
      b.nearest_passing = near->name;
      const std::set<std::string> theirs(near->features.begin(), near->features.end());
      const std::set<std::string> mine(r.features.begin(), r.features.end());
      for (const auto& f : r.features)
        if (!theirs.count(f)) b.adds_to_nearest.push_back(f);
      for (const auto& f : near->features)
        if (!mine.count(f)) b.lacks_from_nearest.push_back(f);
    }
  }

  if (doc.rungs.empty()) {
    b.summary = "no rungs ran";
  } else if (!b.found) {
    b.summary = b.skipped > 0 ? fmt::format("nothing to bisect: no rung failed ({} skipped)", b.skipped)
                              : "no rung failed";
  } else if (b.suspects.size() == 1) {
    b.summary = fmt::format("{} fails; one of its features got past the {} stage in no other rung: {}",
                            b.first_failing, b.stage, b.suspects.front());
  } else if (!b.suspects.empty()) {
    b.summary = fmt::format("{} fails; {} suspects remain ({}): a rung with only some of them would split them",
                            b.first_failing, b.suspects.size(), joined(b.suspects));
  } else {
    b.summary = fmt::format(
        "{} fails, but every one of its features got past the {} stage in another rung: the failure lies in "
        "their combination or in the failing shape{}",
        b.first_failing, b.stage, b.failing_case.empty() ? "" : " (" + b.failing_case + ")");
  }
  return b;
}

std::string bisect_table(const BisectResult& b) {
  std::string out;
  if (b.found) {
    out += fmt::format("first failing rung: {} ({}{}, stage {}){}\n", b.first_failing, b.verdict,
                       b.reason.empty() ? "" : ", " + b.reason, b.stage,
                       b.failing_case.empty() ? "" : " at " + b.failing_case);
    if (!b.evidence.empty()) out += fmt::format("  evidence: {}\n", b.evidence);
    out += fmt::format("\n{:<32} {}\n", "feature", "verdict");
    for (const auto& f : b.features)
      out += fmt::format("{:<32} {}\n", f.feature,
                         f.exonerated_by.empty() ? "SUSPECT" : "exonerated by " + f.exonerated_by);
    if (!b.nearest_passing.empty())
      out += fmt::format("\nnearest passing rung: {}; {} adds {}; lacks {}\n", b.nearest_passing, b.first_failing,
                         joined(b.adds_to_nearest), joined(b.lacks_from_nearest));
    for (const auto& l : b.later_failures)
      out += fmt::format("also failing: {} (suspects: {})\n", l.rung, joined(l.suspects));
  }
  if (!b.unresolved.empty())
    out += fmt::format("unresolved (harness breakage, evidence for nothing): {}\n", joined(b.unresolved));
  if (b.found) out += fmt::format("{} rung(s) got past the {} stage and exonerate features; {} skipped\n", b.exonerating, b.stage, b.skipped);
  out += fmt::format("bisect: {}\n", b.summary);
  return out;
}

nlohmann::json to_json(const BisectResult& b) {
  nlohmann::json features = nlohmann::json::array();
  for (const auto& f : b.features)
    features.push_back({{"feature", f.feature}, {"exonerated_by", f.exonerated_by}, {"suspect", f.exonerated_by.empty()}});
  nlohmann::json later = nlohmann::json::array();
  for (const auto& l : b.later_failures) later.push_back({{"rung", l.rung}, {"suspects", l.suspects}});
  return {{"found", b.found},
          {"first_failing", b.first_failing},
          {"verdict", b.verdict},
          {"reason", b.reason},
          {"stage", b.stage},
          {"failing_case", b.failing_case},
          {"evidence", b.evidence},
          {"features", features},
          {"suspects", b.suspects},
          {"nearest_passing", b.nearest_passing},
          {"adds_to_nearest", b.adds_to_nearest},
          {"lacks_from_nearest", b.lacks_from_nearest},
          {"later_failures", later},
          {"unresolved", b.unresolved},
          {"exonerating", b.exonerating},
          {"skipped", b.skipped},
          {"summary", b.summary}};
}

}  // namespace ladder
