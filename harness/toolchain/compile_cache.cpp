#include "harness/toolchain/compile_cache.h"

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "harness/core/hasher.h"
#include "harness/toolchain/paths.h"

namespace ladder::toolchain {
namespace fs = std::filesystem;

namespace {

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Adds every quoted include reachable from `text`, searched beside the including file and then
// in the given folders. Angle-bracket headers come from the toolkit, which the NVRTC version and
// the include options already pin.
void add_local_headers(Hasher& h, const std::string& text, const fs::path& dir,
                       const std::vector<fs::path>& search, std::set<std::string>& seen) {
  static const std::regex include_re(R"re(^\s*#\s*include\s*"([^"]+)")re", std::regex::multiline);
  for (std::sregex_iterator it(text.begin(), text.end(), include_re), end; it != end; ++it) {
    const std::string name = (*it)[1];
    std::vector<fs::path> places{dir / name};
    for (const auto& s : search) places.push_back(s / name);
    for (const auto& p : places) {
      std::error_code ec;
      if (!fs::is_regular_file(p, ec)) continue;
      const std::string canon = fs::weakly_canonical(p, ec).string();
      if (!seen.insert(canon).second) break;
      const std::string body = read_file(p);
      h.add(name);
      h.add(body);
      add_local_headers(h, body, p.parent_path(), search, seen);
      break;
    }
  }
}

std::string default_dir() {
  if (const char* d = std::getenv("LADDER_CACHE_DIR"); d && *d) return d;
  if (const char* d = std::getenv("XDG_CACHE_HOME"); d && *d) return std::string(d) + "/ladder";
  if (const char* d = std::getenv("HOME"); d && *d) return std::string(d) + "/.cache/ladder";
  return "/tmp/ladder-cache";
}

}  // namespace

CompileCache::CompileCache(std::string dir) : dir_(dir.empty() ? default_dir() : std::move(dir)) {}

std::string CompileCache::key(const Nvrtc& nvrtc, const CompileRequest& req) const {
  Hasher h;
  const auto v = nvrtc.version();
  h.add(fmt::format("nvrtc {}.{} {}", v.major, v.minor, nvrtc.library_path()));
  h.add(req.source_text);
  h.add(req.entry);
  h.add(req.arch);
  h.add(req.want == ImageKind::Cubin ? "cubin" : "ptx");
  for (const auto& o : req.options) h.add(o);
  for (const auto& o : default_include_options()) h.add(o);
  std::set<std::string> seen;
  add_local_headers(h, req.source_text, fs::path(req.source_path).parent_path(),
                    {fs::path(source_dir()) / "kernels"}, seen);
  return h.hex();
}

CompileResult CompileCache::compile(const Nvrtc& nvrtc, const CompileRequest& req) {
  if (!enabled || !nvrtc.available()) return nvrtc.compile(req);
  const std::string k = key(nvrtc, req);
  const fs::path image_path = fs::path(dir_) / (k + (req.want == ImageKind::Cubin ? ".cubin" : ".ptx"));
  const fs::path meta_path = fs::path(dir_) / (k + ".name");
  std::error_code ec;
  if (fs::is_regular_file(image_path, ec) && fs::is_regular_file(meta_path, ec)) {
    CompileResult r;
    r.ok = true;
    r.cache_hit = true;
    r.kind = req.want;
    r.image = read_file(image_path);
    r.lowered_name = read_file(meta_path);
    r.options = req.options;
    if (!r.image.empty()) return r;
  }
  CompileResult r = nvrtc.compile(req);
  if (!r.ok) return r;  // failures are not cached: their logs matter and they are cheap
  fs::create_directories(dir_, ec);
  auto write_atomic = [&](const fs::path& target, const std::string& bytes) {
    const fs::path tmp = target.string() + fmt::format(".tmp{}", ::getpid());
    {
      std::ofstream out(tmp, std::ios::binary);
      out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
      if (!out) return;
    }
    fs::rename(tmp, target, ec);
  };
  write_atomic(meta_path, r.lowered_name);
  write_atomic(image_path, r.image);
  return r;
}

}  // namespace ladder::toolchain
