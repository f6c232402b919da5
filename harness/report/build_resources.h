// What every kernel build costs an SM, summed up a template at a time: how many builds, their
// registers' range, and which hold local memory (spills or local arrays). kernels/README.md
// carries this table for sm_90 and the NVRTC the CI compiles with; the CI's compile of every
// build checks it, so a change that adds a spill or moves a template's registers shows there.
// Two every-build documents (two NVRTCs, or two commits) compare build by build.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/toolchain/cubin_resources.h"

namespace ladder::report {

struct BuildResources {
  std::string entry;  // the name expression, "ladder::rmsnorm_fwd<float, 4>"
  toolchain::KernelResources resources;
};

// One row a template, in name order: | `name` | builds | registers | builds with local memory |.
// The last cell is "none", or the count with the most bytes a thread and up to three of the
// builds. The header line is part of it.
std::string build_resources_markdown(const std::vector<BuildResources>& builds);

// How two such tables differ, a line a difference ("" when they agree): the templates, their
// build counts and their local-memory cells must match exactly; the ends of a register range may
// differ by up to `register_slack`. Why the slack: ptxas under NVRTC has given one unchanged
// build 85 registers in one compile and 87 in another of the same source and options (the CI's
// clean clone, 2026-12), so an exact match failed on no change; a real change (a spill, or a
// range that moves by more) still shows. A malformed table is a difference too.
std::string build_table_differences(const std::string& documented, const std::string& compiled,
                                    int register_slack);


// Whether `doc` is what `ladder bench --resources --every-build --json` writes.
bool is_every_build_document(const nlohmann::json& doc);

// One build whose numbers differ between two every-build documents, or that only one has.
struct BuildChange {
  std::string entry;
  std::optional<toolchain::KernelResources> before, after;
  bool lost() const { return before && !after; }  // compiled before, not after: compare fails
};

// Reads every build of `doc` as compare_builds does, alone, so that an error can name its file.
void check_every_build_document(const nlohmann::json& doc);

// The builds that moved (registers, local or static shared memory), appeared or went, in entry
// order. Throws std::runtime_error naming the member at fault in a malformed document.
std::vector<BuildChange> compare_builds(const nlohmann::json& before, const nlohmann::json& after);
std::string build_compare_table(const std::vector<BuildChange>& changes, const nlohmann::json& before,
                                const nlohmann::json& after);

// A template's builds in both documents, by machine code: the same digest, a different one (the
// build's entries), or not compared (a document written before the digests were recorded). Why:
// an edit can change a build's instructions without moving its registers, and one that changes
// none of them cannot have changed what a bench measured of it.
struct CodeChanges {
  std::string name;  // "ladder::rmsnorm_fwd"
  std::size_t same = 0, unknown = 0;
  std::vector<std::string> changed;
};
std::vector<CodeChanges> compare_code(const nlohmann::json& before, const nlohmann::json& after);
// The totals, then a row for each template with a build whose code changed.
std::string code_compare_table(const std::vector<CodeChanges>& templates);

}  // namespace ladder::report
