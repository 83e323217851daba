// port_holder.cpp: the process listening on a TCP port (port_holder.h).
#include "port_holder.h"

#include <dirent.h>
#include <unistd.h>

#include <fmt/core.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

namespace zkpipe::server {
namespace {

// The inodes of the LISTEN sockets (state 0A) on `port` in one /proc/net table.
void listening_inodes(const char* table, uint16_t port, std::set<std::string>& inodes) {
  std::ifstream in(table);
  std::string line;
  std::getline(in, line);  // the header
  while (std::getline(in, line)) {
    std::istringstream row(line);
    std::string slot, local, remote, state, queues, timer, retransmits, uid, timeout, inode;
    if (!(row >> slot >> local >> remote >> state >> queues >> timer >> retransmits >> uid >>
          timeout >> inode)) {
      continue;
    }
    const size_t colon = local.rfind(':');
    if (state != "0A" || colon == std::string::npos) continue;
    if (std::strtoul(local.c_str() + colon + 1, nullptr, 16) == port) inodes.insert(inode);
  }
}

}  // namespace

std::string tcp_port_holder(uint16_t port) {
  std::set<std::string> inodes;
  listening_inodes("/proc/net/tcp", port, inodes);
  listening_inodes("/proc/net/tcp6", port, inodes);
  if (inodes.empty()) return "";
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) return "";
  std::string holder;
  while (dirent* e = ::readdir(proc)) {
    const std::string pid = e->d_name;
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string fd_dir = "/proc/" + pid + "/fd";
    DIR* fds = ::opendir(fd_dir.c_str());
    if (fds == nullptr) continue;  // not ours to inspect
    while (dirent* f = ::readdir(fds)) {
      char target[128];
      const std::string link = fd_dir + "/" + f->d_name;
      const ssize_t n = ::readlink(link.c_str(), target, sizeof(target) - 1);
      if (n <= 0) continue;
      const std::string t(target, static_cast<size_t>(n));
      if (t.rfind("socket:[", 0) == 0 && inodes.count(t.substr(8, t.size() - 9))) {
        std::string comm;
        std::getline(std::ifstream("/proc/" + pid + "/comm"), comm);
        holder = fmt::format("pid {} ({})", pid, comm);
        break;
      }
    }
    ::closedir(fds);
    if (!holder.empty()) break;
  }
  ::closedir(proc);
  return holder;
}

}  // namespace zkpipe::server
