// A report's table of contents: its second-level headings outside code blocks, each linked by the
// anchor GitHub gives it, and how many tool outputs the report carries verbatim. REPORT.md runs
// to tens of thousands of lines; the list is what a reader navigates by.
#pragma once
#include <string>

namespace ladder::report {

// GitHub's anchor for a heading's text: lower case, spaces to '-', and only letters, digits, '-'
// and '_' kept (other characters, non-ASCII included, dropped).
std::string heading_anchor(const std::string& text);

// "### Contents" and a list of `markdown`'s "## " headings (duplicates' anchors numbered as GitHub
// numbers them), with the count of "### `FILE`" sections under the last line; "" without headings.
std::string table_of_contents(const std::string& markdown);

}  // namespace ladder::report
