// JUnit XML for CI servers (Jenkins, GitLab, GitHub test reports): one testsuite for the run, one
// testcase a rung. Rewritten atomically after every rung, like the JSON document. The mapping
// keeps the verdicts apart: an expected failure (XFAIL) passes with a note, FAIL and XPASS are
// failures, UNRESOLVED is an error (harness breakage, not a failing test), SKIPPED and
// UNSUPPORTED are skipped with their reason.
#include <fmt/format.h>

#include "harness/report/printers.h"

namespace ladder {
namespace {

std::string xml_escaped(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (unsigned char ch : s) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        // XML 1.0 allows no control characters but tab, newline and carriage return.
        if (ch < 0x20 && ch != '\t' && ch != '\n' && ch != '\r') out += fmt::format("\\x{:02x}", ch);
        else out += static_cast<char>(ch);
    }
  }
  return out;
}

std::string evidence_of(const RungResult& r) {
  return r.failing_case.empty() ? r.evidence : fmt::format("[{}] {}", r.failing_case, r.evidence);
}

class JunitPrinter final : public Printer {
 public:
  explicit JunitPrinter(std::string path) : path_(std::move(path)) {}
  void begin(const RunDocument& doc) override { write(doc); }
  void rung(const RunDocument& doc, const RungResult&) override { write(doc); }
  void end(const RunDocument& doc) override { write(doc); }

 private:
  void write(const RunDocument& doc) { write_file_atomic(path_, junit_xml(doc)); }
  std::string path_;
};

}  // namespace

std::string junit_xml(const RunDocument& doc) {
  std::size_t failures = 0, errors = 0, skipped = 0;
  std::string cases;
  for (const auto& r : doc.rungs) {
    const std::string ev = xml_escaped(evidence_of(r));
    std::string body;
    switch (r.verdict) {
      case Verdict::Pass: break;
      case Verdict::XFail:
        body = fmt::format("<system-out>expected failure ({}): {}</system-out>",
                           r.reason ? label(*r.reason) : "?", ev);
        break;
      case Verdict::Fail:
      case Verdict::XPass:
        ++failures;
        body = fmt::format("<failure type=\"{}\" message=\"{}\">{}</failure>", xml_escaped(verdict_text(r)),
                           xml_escaped(verdict_text(r) + " at stage " + std::string(label(r.stage))), ev);
        break;
      case Verdict::Unresolved:
        ++errors;
        body = fmt::format("<error type=\"UNRESOLVED\" message=\"harness could not decide\">{}</error>", ev);
        break;
      case Verdict::Skipped:
      case Verdict::Unsupported:
        ++skipped;
        body = fmt::format("<skipped message=\"{}: {}\"/>", label(r.verdict), ev);
        break;
    }
    cases += fmt::format("    <testcase classname=\"{}\" name=\"{}\" time=\"{:.3f}\">{}</testcase>\n",
                         xml_escaped(doc.ladder_name), xml_escaped(r.name), r.wall_ms / 1000.0, body);
  }
  return fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" "
      "errors=\"{}\" skipped=\"{}\" time=\"{:.3f}\" timestamp=\"{}\" hostname=\"{}\">\n{}  </testsuite>\n</testsuites>\n",
      xml_escaped(doc.ladder_name), doc.rungs.size(), failures, errors, skipped, doc.wall_ms / 1000.0,
      xml_escaped(doc.date), xml_escaped(doc.host), cases);
}

std::unique_ptr<Printer> make_junit_printer(std::string path) { return std::make_unique<JunitPrinter>(std::move(path)); }

}  // namespace ladder
