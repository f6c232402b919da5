// Printers: one interface, several outputs (terminal table, Markdown, JSON file, JUnit XML). A run feeds
// every printer the same events; none of them decides anything.
#pragma once
#include <memory>
#include <ostream>
#include <string>

#include "harness/report/run_document.h"

namespace ladder {

class Printer {
 public:
  virtual ~Printer() = default;
  virtual void begin(const RunDocument&) {}
  virtual void rung(const RunDocument& doc, const RungResult& r) = 0;  // doc holds rungs so far
  virtual void end(const RunDocument& doc) = 0;
};

// A fixed-width table as rungs finish, then the counts of every verdict.
std::unique_ptr<Printer> make_terminal_printer(std::ostream& out, bool verbose);
// Rewrites the whole JSON document after every rung, atomically: an interrupted run keeps what finished.
std::unique_ptr<Printer> make_json_printer(std::string path);
// JUnit XML for CI servers, rewritten atomically after every rung (junit_printer.cpp).
std::unique_ptr<Printer> make_junit_printer(std::string path);
std::string junit_xml(const RunDocument& doc);

// Markdown for REPORT.md: header (machine, GPU, driver, NVRTC, date, commit), the table, counts.
std::string markdown_run_section(const RunDocument& doc, const std::string& title);
std::string counts_line(const RunDocument& doc);  // "PASS 10, FAIL 0, XFAIL 1, ..., SKIPPED 0"
std::string verdict_text(const RungResult& r);    // "FAIL (mismatch)", "XFAIL (compile)", "PASS"

}  // namespace ladder
