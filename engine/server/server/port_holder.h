// engine/server/server/port_holder.h: who listens on a TCP port of this machine, for the
// start-up error of a daemon whose port is taken: the LISTEN sockets of /proc/net/tcp and tcp6
// with that local port, matched by inode to a process's open descriptors (/proc/PID/fd; only
// processes this user may inspect). Thread-safety: reentrant.
#pragma once

#include <cstdint>
#include <string>

namespace zkpipe::server {

// "pid 1234 (zkpipe)" or "" when no listener, or none this user may see, holds the port.
std::string tcp_port_holder(uint16_t port);

}  // namespace zkpipe::server
