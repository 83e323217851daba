// param_dir.cpp: the parameter directory, the manifest and its digests
// (zkpipe/filecoin/param_dir.h).
#include "zkpipe/filecoin/param_dir.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <set>

#include <nlohmann/json.hpp>

#include "zkpipe/filecoin/hashes.h"
#include "zkpipe/sdk/sha256.h"

namespace zkpipe::filecoin {
namespace {

#include "filecoin_parameters_json.inc"  // kParametersJson, generated from parameters.json

}  // namespace

std::string parameter_dir() {
  const char* env = std::getenv("FIL_PROOFS_PARAMETER_CACHE");
  return env != nullptr && *env != '\0' ? std::string(env) : std::string(kDefaultParameterDir);
}

Result<std::vector<ParamFile>> parse_parameters_json(std::string_view text,
                                                     const std::string& what) {
  const nlohmann::json j = nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return invalid_argument(what + ": not a JSON object of parameter files");
  std::vector<ParamFile> out;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string at = what + ": \"" + it.key() + "\"";
    const nlohmann::json& e = it.value();
    if (!e.is_object() || !e.contains("digest") || !e.at("digest").is_string() ||
        !e.contains("cid") || !e.at("cid").is_string() || !e.contains("sector_size") ||
        !e.at("sector_size").is_number_unsigned())
      return invalid_argument(at + ": needs cid (string), digest (string), sector_size (number)");
    ParamFile f{it.key(), e.at("cid"), e.at("digest"), e.at("sector_size")};
    if (f.digest.size() != 32 || !std::all_of(f.digest.begin(), f.digest.end(), [](char c) {
          return std::isxdigit(static_cast<unsigned char>(c));
        }))
      return invalid_argument(at + ": digest \"" + f.digest + "\" is not 32 hex digits");
    std::transform(f.digest.begin(), f.digest.end(), f.digest.begin(), ::tolower);
    if (f.name.find('/') != std::string::npos || f.name.empty() || f.name[0] == '.')
      return invalid_argument(at + ": not a plain file name");
    out.push_back(std::move(f));
  }
  return out;
}

const std::vector<ParamFile>& filecoin_parameters() {
  static const std::vector<ParamFile> files = [] {
    Result<std::vector<ParamFile>> r = parse_parameters_json(kParametersJson, "parameters.json");
    if (!r.ok()) throw std::logic_error("the built-in parameters.json: " + r.status().message());
    return std::move(r).value();
  }();
  return files;
}

Result<std::string> param_file_digest(const std::string& path,
                                      const std::function<void(uint64_t, uint64_t)>& progress) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const std::string why = std::strerror(errno);
    return errno == ENOENT ? not_found(path + ": " + why) : invalid_argument(path + ": " + why);
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return invalid_argument(path + ": not a regular file");
  }
  const auto total = static_cast<uint64_t>(st.st_size);
  std::vector<uint8_t> buf(8 << 20);
  Blake2b512 h;
  uint64_t done = 0;
  for (;;) {
    const ssize_t n = ::read(fd, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const std::string why = std::strerror(errno);
      ::close(fd);
      return internal_error(path + ": reading at offset " + std::to_string(done) + ": " + why);
    }
    if (n == 0) break;
    h.update(buf.data(), static_cast<size_t>(n));
    done += static_cast<uint64_t>(n);
    if (progress) progress(done, total);
  }
  ::close(fd);
  const Blake2b512Digest d = h.finish();
  return to_hex(std::span<const uint8_t>(d.data(), 16));
}

std::string_view param_state_name(ParamState s) {
  switch (s) {
    case ParamState::kOk:
      return "ok";
    case ParamState::kMismatch:
      return "mismatch";
    case ParamState::kMissing:
      return "missing";
    case ParamState::kUnknown:
      return "unknown";
  }
  return "?";
}

Result<std::vector<ParamCheck>> check_parameter_dir(
    const std::string& dir, const std::vector<ParamFile>& manifest,
    const std::function<void(const std::string&, uint64_t, uint64_t)>& progress) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    return not_found("parameter directory " + dir + ": not a readable directory" +
                     (ec ? " (" + ec.message() + ")" : ""));
  std::vector<ParamCheck> out;
  std::set<std::string> named;
  for (const ParamFile& f : manifest) {
    named.insert(f.name);
    ParamCheck c;
    c.name = f.name;
    c.expected = f.digest;
    const std::string path = (std::filesystem::path(dir) / f.name).string();
    if (!std::filesystem::exists(path, ec)) {
      c.state = ParamState::kMissing;
      out.push_back(std::move(c));
      continue;
    }
    c.bytes = std::filesystem::is_regular_file(path, ec) ? std::filesystem::file_size(path, ec) : 0;
    Result<std::string> d = param_file_digest(path, [&](uint64_t done, uint64_t total) {
      if (progress) progress(f.name, done, total);
    });
    if (!d.ok()) return d.status();
    c.actual = *d;
    c.state = c.actual == c.expected ? ParamState::kOk : ParamState::kMismatch;
    out.push_back(std::move(c));
  }
  std::vector<std::string> extra;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("v28-", 0) == 0 && !named.count(name)) extra.push_back(name);
  }
  if (ec) return not_found("parameter directory " + dir + ": " + ec.message());
  std::sort(extra.begin(), extra.end());
  for (const std::string& name : extra) {
    ParamCheck c;
    c.name = name;
    c.state = ParamState::kUnknown;
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace zkpipe::filecoin
