// zkpipe/server/client.h: what both ends of the proving service share (addresses, the bearer
// token file, status codes between zkpipe and gRPC), and a client of a running `zkpipe serve`.
// Thread-safety: Client is safe to share between threads (gRPC stubs are); the rest are pure
// functions (read_token_file reads the file system).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <grpcpp/grpcpp.h>

#include "zkpipe/sdk/status.h"
#include "zkpipe/v1/proving_engine.grpc.pb.h"

namespace zkpipe::server {

// A listen or connect address: "unix:///abs/path.sock" (or "unix:relative/path.sock") or
// "host:port" ("127.0.0.1:9820", "[::1]:9820", "localhost:9820", "0.0.0.0:9820").
struct Address {
  std::string text;  // as given
  std::string grpc;  // what gRPC takes: "unix:/abs/path" or "host:port"
  bool unix_socket = false;
  std::string path;       // unix: the socket's path
  std::string host;       // tcp: without brackets
  uint16_t port = 0;      // tcp
  bool loopback = false;  // unix, or a tcp host whose every resolved address is 127/8 or ::1
};
// INVALID_ARGUMENT naming `what` (e.g. "--listen") and the text when it is not one of those.
Result<Address> parse_address(std::string_view text, std::string_view what);

// The bearer token in `path` (trailing whitespace trimmed). Refused (FAILED_PRECONDITION) when
// the file is group- or world-readable, empty, not a regular file or larger than 4 KiB.
Result<std::string> read_token_file(const std::string& path);

// Status codes both ways (zkpipe's codes are a subset of gRPC's).
grpc::Status to_grpc(const Status& s);
Status from_grpc(const grpc::Status& s);
Code code_from_grpc(grpc::StatusCode code);
// gRPC's name of a code: "OK", "CANCELLED", ..., "UNAUTHENTICATED"; "UNKNOWN" out of range.
std::string_view grpc_code_name(grpc::StatusCode code);

inline constexpr uint64_t kDefaultMaxMessage = 256ull << 20;

struct ClientOptions {
  std::string addr;        // as parse_address takes it
  std::string token_file;  // empty: no token
  uint64_t max_message = kDefaultMaxMessage;
};

class Client {
 public:
  static Result<std::unique_ptr<Client>> connect(const ClientOptions& options);
  // A context for one call: the bearer token (when set) and the deadline (when given).
  std::unique_ptr<grpc::ClientContext> context(
      std::optional<std::chrono::milliseconds> deadline = std::nullopt) const;
  zkpipe::v1::ProvingEngine::Stub& stub() { return *stub_; }
  const Address& address() const { return address_; }

 private:
  Client() = default;
  Address address_;
  std::string token_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<zkpipe::v1::ProvingEngine::Stub> stub_;
};

}  // namespace zkpipe::server
