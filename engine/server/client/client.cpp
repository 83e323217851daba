// client.cpp: addresses, token files, status codes and Client (zkpipe/server/client.h).
// Thread-safety: see the header.
#include "zkpipe/server/client.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>

#include <fmt/core.h>

#include "zkpipe/sdk/clock.h"

namespace zkpipe::server {
namespace {

bool is_loopback(const sockaddr* sa) {
  if (sa->sa_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(sa);
    return (ntohl(in->sin_addr.s_addr) >> 24) == 127;
  }
  if (sa->sa_family == AF_INET6) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(sa);
    if (IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr)) return true;
    return IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr) && in6->sin6_addr.s6_addr[12] == 127;
  }
  return false;
}

// Decided on the addresses the host resolves to, not on its text (a name such as
// "127.zk.example" may resolve anywhere): loopback when it resolves and every address is in
// 127.0.0.0/8 or ::1. A name that does not resolve is not loopback (it cannot be bound either).
bool is_loopback_host(const std::string& host) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(host.c_str(), nullptr, &hints, &found) != 0 || found == nullptr) return false;
  bool all = true;
  for (const addrinfo* ai = found; ai != nullptr; ai = ai->ai_next) {
    all = all && is_loopback(ai->ai_addr);
  }
  freeaddrinfo(found);
  return all;
}

}  // namespace

Result<Address> parse_address(std::string_view text, std::string_view what) {
  Address a;
  a.text = std::string(text);
  const auto bad = [&](std::string_view why) {
    return invalid_argument(std::string(what) + ": '" + echo_value(text) + "' " + std::string(why) +
                            " (use unix:///path/to.sock or host:port, e.g. 127.0.0.1:9820)");
  };
  if (text.empty()) return bad("is empty");
  if (text.rfind("unix:", 0) == 0) {
    std::string_view path = text.substr(5);
    if (path.rfind("//", 0) == 0) path.remove_prefix(2);  // unix:///abs -> /abs
    if (path.empty()) return bad("names no socket path");
    if (path.size() > 100) return bad("has a socket path longer than 100 bytes");
    if (path.find('\0') != std::string_view::npos) return bad("has a NUL byte");
    a.unix_socket = true;
    a.loopback = true;
    a.path = std::string(path);
    a.grpc = "unix:" + a.path;
    return a;
  }
  if (text.find("://") != std::string_view::npos) return bad("has an unknown scheme");
  const size_t colon = text.rfind(':');
  if (colon == std::string_view::npos) return bad("has no port");
  std::string_view host = text.substr(0, colon);
  const std::string_view port = text.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  } else if (host.find(':') != std::string_view::npos) {
    return bad("has an IPv6 host without [brackets]");
  }
  if (host.empty()) return bad("has no host (0.0.0.0 listens on every address)");
  unsigned value = 0;
  const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (ec != std::errc() || end != port.data() + port.size() || value > 65535) {
    return bad("has a port that is not a number from 0 to 65535");
  }
  a.host = std::string(host);
  a.port = static_cast<uint16_t>(value);
  a.loopback = is_loopback_host(a.host);
  a.grpc = std::string(text);
  return a;
}

Result<std::string> read_token_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) {
    const int err = errno;
    return Status(err == ENOENT ? Code::kNotFound : Code::kFailedPrecondition,
                  "token file '" + path + "': " + std::strerror(err));
  }
  struct stat st {};
  std::string token;
  Status s;
  if (::fstat(fd, &st) != 0) {
    s = failed_precondition("token file '" + path + "': " + std::strerror(errno));
  } else if (!S_ISREG(st.st_mode)) {
    s = failed_precondition("token file '" + path + "' is not a regular file");
  } else if ((st.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
    s = failed_precondition("token file '" + path + "' is readable or writable by group or " +
                            "others (mode " + fmt::format("{:03o}", st.st_mode & 0777) +
                            "); chmod 600 it");
  } else if (st.st_size > 4096) {
    s = failed_precondition("token file '" + path + "' is larger than 4 KiB");
  } else {
    char buf[4097];
    ssize_t n = 0;
    while ((n = ::read(fd, buf, sizeof buf)) < 0 && errno == EINTR) {
    }
    if (n < 0) s = failed_precondition("token file '" + path + "': " + std::strerror(errno));
    if (n > 0) token.assign(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  ZKP_RETURN_IF_ERROR(s);
  while (!token.empty() && (token.back() == '\n' || token.back() == '\r' || token.back() == ' ' ||
                            token.back() == '\t')) {
    token.pop_back();
  }
  if (token.empty()) return failed_precondition("token file '" + path + "' is empty");
  for (char c : token) {
    if (c < 0x21 || c > 0x7e) {
      return failed_precondition("token file '" + path +
                                 "' holds a character that is not printable ASCII");
    }
  }
  return token;
}

grpc::Status to_grpc(const Status& s) {
  grpc::StatusCode c = grpc::StatusCode::UNKNOWN;
  switch (s.code()) {
    case Code::kOk:
      return grpc::Status::OK;
    case Code::kInvalidArgument:
      c = grpc::StatusCode::INVALID_ARGUMENT;
      break;
    case Code::kNotFound:
      c = grpc::StatusCode::NOT_FOUND;
      break;
    case Code::kUnavailable:
      c = grpc::StatusCode::UNAVAILABLE;
      break;
    case Code::kResourceExhausted:
      c = grpc::StatusCode::RESOURCE_EXHAUSTED;
      break;
    case Code::kDeadlineExceeded:
      c = grpc::StatusCode::DEADLINE_EXCEEDED;
      break;
    case Code::kFailedPrecondition:
      c = grpc::StatusCode::FAILED_PRECONDITION;
      break;
    case Code::kInternal:
      c = grpc::StatusCode::INTERNAL;
      break;
    case Code::kAborted:
      c = grpc::StatusCode::ABORTED;
      break;
    case Code::kAlreadyExists:
      c = grpc::StatusCode::ALREADY_EXISTS;
      break;
    case Code::kUnauthenticated:
      c = grpc::StatusCode::UNAUTHENTICATED;
      break;
  }
  return {c, s.message()};
}

Code code_from_grpc(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK:
      return Code::kOk;
    case grpc::StatusCode::INVALID_ARGUMENT:
    case grpc::StatusCode::OUT_OF_RANGE:
    case grpc::StatusCode::PERMISSION_DENIED:
      return Code::kInvalidArgument;
    case grpc::StatusCode::UNAUTHENTICATED:
      return Code::kUnauthenticated;
    case grpc::StatusCode::NOT_FOUND:
      return Code::kNotFound;
    case grpc::StatusCode::UNAVAILABLE:
      return Code::kUnavailable;
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return Code::kResourceExhausted;
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return Code::kDeadlineExceeded;
    case grpc::StatusCode::FAILED_PRECONDITION:
      return Code::kFailedPrecondition;
    case grpc::StatusCode::ABORTED:
    case grpc::StatusCode::CANCELLED:
      return Code::kAborted;
    case grpc::StatusCode::ALREADY_EXISTS:
      return Code::kAlreadyExists;
    default:
      return Code::kInternal;
  }
}

std::string_view grpc_code_name(grpc::StatusCode code) {
  static constexpr std::string_view kNames[] = {"OK",
                                                "CANCELLED",
                                                "UNKNOWN",
                                                "INVALID_ARGUMENT",
                                                "DEADLINE_EXCEEDED",
                                                "NOT_FOUND",
                                                "ALREADY_EXISTS",
                                                "PERMISSION_DENIED",
                                                "RESOURCE_EXHAUSTED",
                                                "FAILED_PRECONDITION",
                                                "ABORTED",
                                                "OUT_OF_RANGE",
                                                "UNIMPLEMENTED",
                                                "INTERNAL",
                                                "UNAVAILABLE",
                                                "DATA_LOSS",
                                                "UNAUTHENTICATED"};
  const int c = static_cast<int>(code);
  return c >= 0 && c <= 16 ? kNames[c] : "UNKNOWN";
}

Status from_grpc(const grpc::Status& s) {
  if (s.ok()) return ok_status();
  const std::string_view name = grpc_code_name(s.error_code());
  const Code code = code_from_grpc(s.error_code());
  // Codes zkpipe has no name for keep gRPC's in the message.
  const bool same_name = code_name(code) == name;
  return Status(code, same_name ? s.error_message() : std::string(name) + ": " + s.error_message());
}

Result<std::unique_ptr<Client>> Client::connect(const ClientOptions& options) {
  std::unique_ptr<Client> c(new Client());
  ZKP_ASSIGN_OR_RETURN(c->address_, parse_address(options.addr, "--addr"));
  if (!options.token_file.empty()) {
    ZKP_ASSIGN_OR_RETURN(c->token_, read_token_file(options.token_file));
  }
  grpc::ChannelArguments args;
  const int max = static_cast<int>(std::min<uint64_t>(options.max_message, INT32_MAX));
  args.SetMaxReceiveMessageSize(max);
  args.SetMaxSendMessageSize(max);
  c->channel_ =
      grpc::CreateCustomChannel(c->address_.grpc, grpc::InsecureChannelCredentials(), args);
  c->stub_ = zkpipe::v1::ProvingEngine::NewStub(c->channel_);
  return c;
}

std::unique_ptr<grpc::ClientContext> Client::context(
    std::optional<std::chrono::milliseconds> deadline) const {
  auto ctx = std::make_unique<grpc::ClientContext>();
  if (!token_.empty()) ctx->AddMetadata("authorization", "Bearer " + token_);
  if (deadline) ctx->set_deadline(saturating_after(std::chrono::system_clock::now(), *deadline));
  return ctx;
}

}  // namespace zkpipe::server
