// store_common.cpp: see store_common.h.
#include "store_common.h"

#include <algorithm>
#include <sstream>

namespace zkpipe::store {

int64_t backoff_ms(const StoreConfig& config, uint32_t attempts) {
  constexpr int64_t kMax = 60'000;
  int64_t ms = config.retry_backoff_ms;
  for (uint32_t i = 1; i < attempts && ms < kMax; ++i) ms *= 2;
  return std::min(ms, kMax);
}

std::string conninfo_for_messages(const std::string& conninfo) {
  if (conninfo.empty()) return "(from the PG* environment)";
  if (conninfo.rfind("postgres://", 0) == 0 || conninfo.rfind("postgresql://", 0) == 0) {
    // URI form: drop "user:password@" down to the user.
    const size_t at = conninfo.find('@');
    const size_t scheme = conninfo.find("://") + 3;
    if (at == std::string::npos) return conninfo;
    const std::string userinfo = conninfo.substr(scheme, at - scheme);
    const size_t colon = userinfo.find(':');
    return conninfo.substr(0, scheme) + userinfo.substr(0, colon) + conninfo.substr(at);
  }
  std::istringstream in(conninfo);
  std::string word, out;
  while (in >> word) {
    if (word.rfind("password", 0) == 0) continue;
    if (!out.empty()) out += ' ';
    out += word;
  }
  return out;
}

}  // namespace zkpipe::store
