// REPORT.md's table of contents: second-level headings outside code blocks, linked by GitHub's
// anchors, duplicates numbered; tool outputs counted.
#include <string>

#include "harness/report/contents.h"
#include "tests/catch.h"

using namespace ladder_test;

TEST_CASE("heading anchors follow GitHub's: lower case, spaces to dashes, punctuation dropped", "[report][contents]") {
  CHECK(ladder::report::heading_anchor("Benchmarks (`reports/h200/bench.json`)") == "benchmarks-reportsh200benchjson");
  CHECK(ladder::report::heading_anchor("rmsnorm-lowering + selftest") == "rmsnorm-lowering--selftest");
  CHECK(ladder::report::heading_anchor("a_b 1×4096") == "a_b-14096");
}

TEST_CASE("the contents list every second-level heading outside code blocks", "[report][contents]") {
  const std::string md =
      "## First (`a.json`)\n\ntext\n### `reports/x.txt`\n\n```\n## not a heading\n### `not counted`\n```\n"
      "## Twice\n\n## Twice\n### `reports/y.txt`\n";
  const std::string toc = ladder::report::table_of_contents(md);
  INFO(toc);
  CHECK(toc ==
        "### Contents\n\n- [First (`a.json`)](#first-ajson)\n- [Twice](#twice)\n- [Twice](#twice-1)\n\n"
        "2 tool outputs follow the tables verbatim, each under its file's name.\n\n");
  CHECK(ladder::report::table_of_contents("no headings\n").empty());
}
