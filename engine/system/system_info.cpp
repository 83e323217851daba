// engine/system/system_info.cpp: read_system_info() and usable_memory_bytes() from
// /proc/meminfo, the process's cgroup (v2 memory.max, else v1 memory.limit_in_bytes, lowest
// over the cgroup and its ancestors), RLIMIT_MEMLOCK, the THP mode and the CPU count; plus the
// text parsers of system_parse.h that the CUDA side shares (PCIe link, UUID).
// Thread-safety: no shared state; every call reads the files afresh. Nothing here throws out.
#include <sys/resource.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <thread>
#include <vector>

#include "system_parse.h"
#include "zkpipe/system.h"

namespace zkpipe::system_detail {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Splits at '\n'; the last line may lack one.
std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> out;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    out.push_back(text.substr(0, nl));
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return out;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    size_t pos = s.find(sep, start);
    out.push_back(s.substr(start, pos == std::string_view::npos ? pos : pos - start));
    if (pos == std::string_view::npos) break;
    start = pos + 1;
  }
  return out;
}

std::optional<uint64_t> parse_u64(std::string_view s) {
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

// mountinfo escapes space, tab, newline and backslash as \ooo.
std::string unescape_octal(std::string_view s) {
  auto is_octal = [](char c) { return c >= '0' && c <= '7'; };
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size() && is_octal(s[i + 1]) && is_octal(s[i + 2]) &&
        is_octal(s[i + 3])) {
      int v = (s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0');
      out.push_back(static_cast<char>(v));
      i += 3;
      continue;
    }
    out.push_back(s[i]);
  }
  return out;
}

std::string parent_dir(const std::string& dir) {
  size_t pos = dir.find_last_of('/');
  if (pos == std::string::npos || pos == 0) return "/";
  return dir.substr(0, pos);
}

std::optional<uint64_t> min_limit(std::optional<uint64_t> a, std::optional<uint64_t> b) {
  if (!a) return b;
  if (!b) return a;
  return std::min(*a, *b);
}

}  // namespace

std::optional<std::string> read_text_file(const std::string& path) {
  try {
    std::FILE* f = std::fopen(path.c_str(), "re");
    if (f == nullptr) return std::nullopt;
    std::string text;
    char chunk[4096];
    size_t n = 0;
    while ((n = std::fread(chunk, 1, sizeof chunk, f)) > 0) text.append(chunk, n);
    bool failed = std::ferror(f) != 0;
    std::fclose(f);
    if (failed) return std::nullopt;
    return text;
  } catch (...) {
    return std::nullopt;
  }
}

MemInfo parse_meminfo(std::string_view text) {
  MemInfo info;
  uint64_t mem_free = 0;
  bool have_available = false;
  for (std::string_view line : lines_of(text)) {
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view key = trim(line.substr(0, colon));
    std::string_view rest = trim(line.substr(colon + 1));
    uint64_t scale = 1;
    if (rest.size() >= 2 && rest.substr(rest.size() - 2) == "kB") {
      scale = 1024;
      rest = trim(rest.substr(0, rest.size() - 2));
    }
    std::optional<uint64_t> value = parse_u64(rest);
    if (!value) continue;
    uint64_t v = *value * scale;
    if (key == "MemTotal") {
      info.total_bytes = v;
    } else if (key == "MemAvailable") {
      info.available_bytes = v;
      have_available = true;
    } else if (key == "MemFree") {
      mem_free = v;
    } else if (key == "Hugepagesize") {
      info.hugepage_bytes = v;
    } else if (key == "HugePages_Total") {
      info.hugepages_total = *value;  // a count, not kB
    }
  }
  if (!have_available) info.available_bytes = mem_free;
  return info;
}

ProcCgroup parse_proc_cgroup(std::string_view text) {
  ProcCgroup out;
  for (std::string_view line : lines_of(text)) {
    size_t c1 = line.find(':');
    if (c1 == std::string_view::npos) continue;
    size_t c2 = line.find(':', c1 + 1);
    if (c2 == std::string_view::npos) continue;
    std::string_view id = line.substr(0, c1);
    std::string_view controllers = line.substr(c1 + 1, c2 - c1 - 1);
    std::string path(trim(line.substr(c2 + 1)));
    if (path.empty()) continue;
    if (id == "0" && controllers.empty()) {
      if (!out.v2_path) out.v2_path = path;
      continue;
    }
    for (std::string_view c : split(controllers, ','))
      if (c == "memory" && !out.v1_memory_path) out.v1_memory_path = path;
  }
  return out;
}

CgroupMounts parse_mountinfo(std::string_view text) {
  CgroupMounts out;
  for (std::string_view line : lines_of(text)) {
    std::vector<std::string_view> fields;
    for (std::string_view f : split(line, ' '))
      if (!f.empty()) fields.push_back(f);
    auto dash = std::find(fields.begin(), fields.end(), std::string_view("-"));
    if (fields.size() < 5 || dash == fields.end() || fields.end() - dash < 2) continue;
    std::string_view fstype = *(dash + 1);
    std::string_view super = (fields.end() - dash >= 4) ? *(dash + 3) : std::string_view();
    CgroupMount mount{unescape_octal(fields[3]), unescape_octal(fields[4])};
    if (fstype == "cgroup2") {
      if (!out.v2) out.v2 = mount;
    } else if (fstype == "cgroup") {
      for (std::string_view opt : split(super, ','))
        if (opt == "memory" && !out.v1_memory) out.v1_memory = mount;
    }
  }
  return out;
}

std::string cgroup_dir(const CgroupMount& mount, const std::string& cgroup_path) {
  std::string base = mount.mount_point;
  while (base.size() > 1 && base.back() == '/') base.pop_back();
  std::string root = mount.root;
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  std::string rel;
  if (root == "/") {
    rel = cgroup_path;
  } else if (cgroup_path.compare(0, root.size(), root) == 0 &&
             (cgroup_path.size() == root.size() || cgroup_path[root.size()] == '/')) {
    rel = cgroup_path.substr(root.size());
  } else {
    return base;
  }
  while (!rel.empty() && rel.back() == '/') rel.pop_back();
  if (rel.empty()) return base;
  if (rel.front() != '/') rel.insert(rel.begin(), '/');
  return base == "/" ? rel : base + rel;
}

CgroupLimit parse_cgroup_limit(std::string_view text) {
  std::string_view t = trim(text);
  if (t == "max") return {LimitKind::kNoLimit, 0};
  std::optional<uint64_t> v = parse_u64(t);
  if (!v) return {LimitKind::kInvalid, 0};
  if (*v >= kCgroupNoLimitThreshold) return {LimitKind::kNoLimit, 0};
  return {LimitKind::kLimit, *v};
}

std::string parse_thp_mode(std::string_view text) {
  size_t open = text.find('[');
  size_t close = open == std::string_view::npos ? open : text.find(']', open);
  if (close == std::string_view::npos || close == open + 1) return "unknown";
  return std::string(text.substr(open + 1, close - open - 1));
}

int parse_link_generation(std::string_view text) {
  std::string_view t = trim(text);
  size_t end = 0;
  while (end < t.size() && (std::isdigit(static_cast<unsigned char>(t[end])) || t[end] == '.'))
    ++end;
  std::string_view number = t.substr(0, end);
  std::string_view unit = trim(t.substr(end));
  if (number.empty() || unit.substr(0, 4) != "GT/s") return 0;
  // Transfer rate per lane of each generation, as sysfs prints it.
  static constexpr std::pair<std::string_view, int> kRates[] = {
      {"2.5", 1},  {"5", 2},  {"5.0", 2},  {"8", 3},  {"8.0", 3}, {"16", 4},
      {"16.0", 4}, {"32", 5}, {"32.0", 5}, {"64", 6}, {"64.0", 6}};
  for (const auto& [rate, gen] : kRates)
    if (number == rate) return gen;
  return 0;
}

int parse_link_width(std::string_view text) {
  std::string_view t = trim(text);
  if (!t.empty() && (t.front() == 'x' || t.front() == 'X')) t.remove_prefix(1);
  std::optional<uint64_t> v = parse_u64(t);
  if (!v || *v == 0 || *v > 64) return 0;
  return static_cast<int>(*v);
}

std::string normalize_pci_bus_id(std::string_view bus_id) {
  std::string id(trim(bus_id));
  for (char& c : id) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  size_t colon = id.find(':');
  // The PCI domain is 16 bits; some tools print it with 8 hex digits.
  if (colon == 8 && id.compare(0, 4, "0000") == 0) id.erase(0, 4);
  return id;
}

std::string format_gpu_uuid(const unsigned char* bytes16) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "GPU-";
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out.push_back('-');
    out.push_back(kHex[bytes16[i] >> 4]);
    out.push_back(kHex[bytes16[i] & 0xf]);
  }
  return out;
}

CgroupResult read_cgroup_limit(const std::string& root, const CgroupMount& mount,
                               const std::string& cgroup_path, const std::string& limit_file) {
  CgroupResult result;
  std::string base = root + cgroup_dir(mount, "/");
  std::string dir = root + cgroup_dir(mount, cgroup_path);
  while (true) {
    if (std::optional<std::string> text = read_text_file(dir + "/" + limit_file)) {
      CgroupLimit limit = parse_cgroup_limit(*text);
      if (limit.kind != LimitKind::kInvalid) result.found = true;
      if (limit.kind == LimitKind::kLimit)
        result.limit_bytes = min_limit(result.limit_bytes, limit.bytes);
    }
    if (dir.size() <= base.size() || dir == "/") break;
    dir = parent_dir(dir);
  }
  return result;
}

PcieLink read_pcie_link(const std::string& root, std::string_view bus_id) {
  PcieLink link;
  std::string dir = root + "/sys/bus/pci/devices/" + normalize_pci_bus_id(bus_id);
  if (auto speed = read_text_file(dir + "/current_link_speed"))
    link.generation = parse_link_generation(*speed);
  if (auto width = read_text_file(dir + "/current_link_width"))
    link.width = parse_link_width(*width);
  if (auto speed = read_text_file(dir + "/max_link_speed"))
    link.max_generation = parse_link_generation(*speed);
  if (auto width = read_text_file(dir + "/max_link_width"))
    link.max_width = parse_link_width(*width);
  return link;
}

SystemInfo read_system_info_at(const std::string& root) {
  SystemInfo info;
  if (auto text = read_text_file(root + "/proc/meminfo")) {
    MemInfo mem = parse_meminfo(*text);
    info.ram_bytes = mem.total_bytes;
    info.available_bytes = std::min(mem.available_bytes, mem.total_bytes);
    info.hugepage_bytes = mem.hugepage_bytes;
    info.hugepages_total = mem.hugepages_total;
  }

  ProcCgroup cg = parse_proc_cgroup(read_text_file(root + "/proc/self/cgroup").value_or(""));
  CgroupMounts mounts = parse_mountinfo(read_text_file(root + "/proc/self/mountinfo").value_or(""));
  // Without mountinfo, assume the usual mount points of a v2 or hybrid system.
  CgroupMount v2 = mounts.v2.value_or(CgroupMount{"/", "/sys/fs/cgroup"});
  CgroupMount v1 = mounts.v1_memory.value_or(CgroupMount{"/", "/sys/fs/cgroup/memory"});
  CgroupResult limit;
  if (cg.v2_path) limit = read_cgroup_limit(root, v2, *cg.v2_path, "memory.max");
  if (!limit.found && cg.v1_memory_path)
    limit = read_cgroup_limit(root, v1, *cg.v1_memory_path, "memory.limit_in_bytes");
  info.cgroup_limit_bytes = limit.limit_bytes;

  struct rlimit rl {};
  if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0) {
    if (rl.rlim_cur != RLIM_INFINITY) info.memlock_soft_bytes = static_cast<uint64_t>(rl.rlim_cur);
    if (rl.rlim_max != RLIM_INFINITY) info.memlock_hard_bytes = static_cast<uint64_t>(rl.rlim_max);
  }

  info.thp_mode = "unknown";
  if (auto text = read_text_file(root + "/sys/kernel/mm/transparent_hugepage/enabled"))
    info.thp_mode = parse_thp_mode(*text);
  info.cpus = std::thread::hardware_concurrency();
  return info;
}

}  // namespace zkpipe::system_detail

namespace zkpipe {

SystemInfo read_system_info() {
  try {
    return system_detail::read_system_info_at("");
  } catch (...) {
    return SystemInfo{};
  }
}

uint64_t usable_memory_bytes(const SystemInfo& info) {
  if (!info.cgroup_limit_bytes) return info.ram_bytes;
  if (info.ram_bytes == 0) return *info.cgroup_limit_bytes;
  return std::min(info.ram_bytes, *info.cgroup_limit_bytes);
}

}  // namespace zkpipe
