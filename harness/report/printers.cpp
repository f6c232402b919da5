#include "harness/report/printers.h"

#include <algorithm>

#include <fmt/format.h>

#include "harness/report/bench_markdown.h"

namespace ladder {
namespace {

std::string clip(std::string s, std::size_t n) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  std::replace(s.begin(), s.end(), '|', '/');
  if (s.size() > n) s = s.substr(0, n - 3) + "...";
  return s;
}

class TerminalPrinter final : public Printer {
 public:
  TerminalPrinter(std::ostream& out, bool verbose) : out_(out), verbose_(verbose) {}
  void begin(const RunDocument& doc) override {
    out_ << fmt::format("ladder {} ({})\n", doc.ladder_name, doc.ladder_file);
    if (doc.options.value("bare_allocations", false))
      out_ << "bare allocations: no redzones, so writes past a buffer are left to an out-of-bounds checker "
              "(compute-sanitizer memcheck)\n";
    out_ << fmt::format("{:<28} {:<44} {:<8} {:<18} {}\n", "rung", "adds", "stage", "verdict", "evidence");
    out_.flush();
  }
  void rung(const RunDocument&, const RungResult& r) override {
    out_ << fmt::format("{:<28} {:<44} {:<8} {:<18} {}\n", clip(r.name, 28), clip(r.adds, 44), label(r.stage),
                        verdict_text(r), clip(evidence(r), verbose_ ? 400 : 110));
    if (verbose_ && !r.nvrtc_log.empty()) out_ << "    nvrtc log: " << clip(r.nvrtc_log, 600) << "\n";
    out_.flush();
  }
  void end(const RunDocument& doc) override {
    out_ << fmt::format("\n{}\n", counts_line(doc));
    if (doc.interrupted) out_ << "interrupted: results above are what finished\n";
    else if (doc.extra.is_object() && doc.extra.value("stop_after_last_rung", false))
      out_ << "a stop came after the last rung finished: every rung ran\n";
    out_.flush();
  }

 private:
  static std::string evidence(const RungResult& r) {
    std::string e = r.evidence;
    if (!r.failing_case.empty() && r.verdict != Verdict::Pass) e = fmt::format("[{}] {}", r.failing_case, e);
    return e;
  }
  std::ostream& out_;
  bool verbose_;
};

class JsonPrinter final : public Printer {
 public:
  explicit JsonPrinter(std::string path) : path_(std::move(path)) {}
  void begin(const RunDocument& doc) override { write(doc); }
  void rung(const RunDocument& doc, const RungResult&) override { write(doc); }
  void end(const RunDocument& doc) override { write(doc); }

 private:
  void write(const RunDocument& doc) { write_file_atomic(path_, to_json(doc).dump(1) + "\n"); }
  std::string path_;
};

}  // namespace

std::unique_ptr<Printer> make_terminal_printer(std::ostream& out, bool verbose) {
  return std::make_unique<TerminalPrinter>(out, verbose);
}
std::unique_ptr<Printer> make_json_printer(std::string path) { return std::make_unique<JsonPrinter>(std::move(path)); }

std::string verdict_text(const RungResult& r) {
  const std::string v(label(r.verdict));
  if (r.verdict == Verdict::Fail || r.verdict == Verdict::XFail)
    return fmt::format("{} ({})", v, r.reason ? label(*r.reason) : "?");
  return v;
}

std::string counts_line(const RunDocument& doc) {
  std::string s;
  for (auto v : {Verdict::Pass, Verdict::Fail, Verdict::XFail, Verdict::XPass, Verdict::Skipped,
                 Verdict::Unsupported, Verdict::Unresolved})
    s += fmt::format("{}{} {}", s.empty() ? "" : ", ", label(v), doc.counts().at(std::string(label(v))));
  return fmt::format("{} rungs: {}", doc.rungs.size(), s);
}

std::string markdown_run_section(const RunDocument& doc, const std::string& title) {
  const auto& t = doc.toolchain;
  std::string md = fmt::format("## {}\n\n", title);
  md += fmt::format("- command: `{}`\n- date: {}; commit: {}; host: {}\n", doc.command, doc.date, doc.commit, doc.host);
  if (const std::string k = kernel_sources_text(doc.extra); !k.empty()) md += "- kernel sources: " + k + "\n";
  const int drv = t.value("driver_version", 0);
  md += fmt::format("- GPU: {}; CUDA driver API: {}; arch: {}; NVRTC {} ({})\n", t.value("gpu", "none"),
                    drv ? fmt::format("{}.{}", drv / 1000, drv % 1000 / 10) : std::string("none"), t.value("arch", "?"),
                    t.value("nvrtc_version", "?"), t.value("nvrtc_path", "?"));
  md += fmt::format("- wall time: {:.0f} ms; {}\n\n", doc.wall_ms, counts_line(doc));
  md += "| rung | adds | stage | verdict | cases | wall ms | evidence |\n| --- | --- | --- | --- | --- | --- | --- |\n";
  for (const auto& r : doc.rungs) {
    std::string e = r.evidence;
    if (!r.failing_case.empty() && r.verdict != Verdict::Pass) e = fmt::format("[{}] {}", r.failing_case, e);
    md += fmt::format("| {} | {} | {} | {} | {}/{} | {:.0f} | {} |\n", r.name, clip(r.adds, 80), label(r.stage),
                      verdict_text(r), r.cases_run, r.cases_total, r.wall_ms, clip(e, 220));
  }
  return md + "\n";
}

}  // namespace ladder
