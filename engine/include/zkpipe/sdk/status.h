// zkpipe/sdk/status.h: the one error type of the engine, Status and Result<T>, with canonical
// codes and the ZKP_RETURN_IF_ERROR / ZKP_ASSIGN_OR_RETURN macros.
// Header-only so plugins may use it internally (it never crosses the C ABI).
// Thread-safety: values; a Status or Result is safe to move between threads, not to share
// mutably.
#pragma once

#include <cerrno>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <variant>

namespace zkpipe {

// Codes mirror zkp_status in abi/common.h one for one (checked in tests/abi).
enum class Code : int32_t {
  kOk = 0,
  kInvalidArgument = 1,     // bad user input: config, manifest, file contents
  kNotFound = 2,            // a file, plugin or symbol that is not there
  kUnavailable = 3,         // the machine lacks what is needed (no CUDA driver, no device)
  kResourceExhausted = 4,   // over a cap or budget, out of memory
  kDeadlineExceeded = 5,    // waited too long
  kFailedPrecondition = 6,  // ABI mismatch, wrong state
  kInternal = 7,            // a bug or an unexpected failure inside zkpipe or a plugin
  kAborted = 8,             // cancelled
  kAlreadyExists = 9,       // a name (a request id) another thing already has (ABI 1.5)
  // The daemon's client only: a call without the bearer token (gRPC UNAUTHENTICATED). Not a
  // zkp_status: no plugin returns it and code_from_int refuses it.
  kUnauthenticated = 10,
};

inline std::string_view code_name(Code code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Code code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status ok_status() { return Status(); }
  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }

  // "INVALID_ARGUMENT: configs/cpu.yaml:3:5: unknown key 'foo'"
  std::string to_string() const;

  // Returns a copy whose message is "<context>: <message>".
  Status with_context(std::string_view context) const {
    if (ok()) return *this;
    return Status(code_, std::string(context) + ": " + message_);
  }

 private:
  Code code_ = Code::kOk;
  std::string message_;
};

inline Status ok_status() {
  return Status();
}
inline Status invalid_argument(std::string m) {
  return {Code::kInvalidArgument, std::move(m)};
}
inline Status not_found(std::string m) {
  return {Code::kNotFound, std::move(m)};
}
inline Status unavailable(std::string m) {
  return {Code::kUnavailable, std::move(m)};
}
inline Status resource_exhausted(std::string m) {
  return {Code::kResourceExhausted, std::move(m)};
}
inline Status deadline_exceeded(std::string m) {
  return {Code::kDeadlineExceeded, std::move(m)};
}
inline Status failed_precondition(std::string m) {
  return {Code::kFailedPrecondition, std::move(m)};
}
inline Status internal_error(std::string m) {
  return {Code::kInternal, std::move(m)};
}
inline Status aborted(std::string m) {
  return {Code::kAborted, std::move(m)};
}
inline Status already_exists(std::string m) {
  return {Code::kAlreadyExists, std::move(m)};
}

// A value or a non-OK Status.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}         // NOLINT: implicit by design
  Result(Status status) : v_(std::move(status)) {}  // NOLINT: implicit by design

  bool ok() const { return std::holds_alternative<T>(v_); }
  // The error; an OK status when a value is held.
  Status status() const { return ok() ? Status() : std::get<Status>(v_); }

  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<T, Status> v_;
};

inline std::string_view code_name(Code code) {
  switch (code) {
    case Code::kOk:
      return "OK";
    case Code::kInvalidArgument:
      return "INVALID_ARGUMENT";
    case Code::kNotFound:
      return "NOT_FOUND";
    case Code::kUnavailable:
      return "UNAVAILABLE";
    case Code::kResourceExhausted:
      return "RESOURCE_EXHAUSTED";
    case Code::kDeadlineExceeded:
      return "DEADLINE_EXCEEDED";
    case Code::kFailedPrecondition:
      return "FAILED_PRECONDITION";
    case Code::kInternal:
      return "INTERNAL";
    case Code::kAborted:
      return "ABORTED";
    case Code::kAlreadyExists:
      return "ALREADY_EXISTS";
    case Code::kUnauthenticated:
      return "UNAUTHENTICATED";
  }
  return "UNKNOWN";
}

inline std::string Status::to_string() const {
  if (ok()) return "OK";
  return std::string(code_name(code_)) + ": " + message_;
}

// A code as an int32 from outside the engine's own code (a plugin's zkp_status, a stored job's
// error code): the Code, or nullopt for a value outside kOk..kAlreadyExists. Never static_cast such
// a value to Code: an out-of-range enum would reach switches and code_name as "UNKNOWN".
inline std::optional<Code> code_from_int(int32_t value) {
  if (value < static_cast<int32_t>(Code::kOk) ||
      value > static_cast<int32_t>(Code::kAlreadyExists)) {
    return std::nullopt;
  }
  return static_cast<Code>(value);
}

// The Status of a plugin call that returned `rc` (a zkp_status) and wrote `message`: OK for
// ZKP_OK, else "<what>: <message>" under the plugin's code (just the message when it starts with
// "<what>:", as a parse message naming its request does). `what` names the plugin (and the
// call): "memory backend 'pageable': release". A value that is no zkp_status code is the
// plugin's bug: INTERNAL, naming the raw value.
inline Status status_from_plugin(int32_t rc, std::string_view what, std::string_view message) {
  const std::optional<Code> code = code_from_int(rc);
  if (code == Code::kOk) return Status();
  std::string text(what);
  if (!code.has_value()) {
    text += ": returned " + std::to_string(rc) + ", which is no zkp_status code";
    if (!message.empty()) text += " (its message: " + std::string(message) + ")";
    return Status(Code::kInternal, std::move(text));
  }
  // A plugin that names the request itself (parse gets `what`) is not named twice.
  if (!what.empty() && message.size() > what.size() && message.substr(0, what.size()) == what &&
      message[what.size()] == ':') {
    return Status(*code, std::string(message));
  }
  text += ": ";
  text += message;
  return Status(*code, std::move(text));
}

// The most of a user's value a message quotes.
inline constexpr size_t kEchoLimit = 100;

// A user's value (a scalar, a key, a token) as every message quotes it: whole when it has at
// most kEchoLimit bytes; else its first kEchoLimit bytes (not splitting a UTF-8 sequence), "..."
// and its full length: "1234567...89 (3145728 bytes)". A 3 MB value never lands in a log.
inline std::string echo_value(std::string_view value) {
  if (value.size() <= kEchoLimit) return std::string(value);
  size_t n = kEchoLimit;
  while (n > 0 && (static_cast<unsigned char>(value[n]) & 0xC0) == 0x80) --n;
  return std::string(value.substr(0, n)) + "... (" + std::to_string(value.size()) + " bytes)";
}

// What a failed open or read of a path says for errno `err`; a symlink loop (ELOOP) is named as
// one rather than as "too many levels of symbolic links" alone.
inline std::string errno_message(int err) {
  if (err == ELOOP) return "symlink loop (too many levels of symbolic links)";
  return std::error_code(err, std::generic_category()).message();
}

}  // namespace zkpipe

#define ZKP_STATUS_CONCAT_INNER(a, b) a##b
#define ZKP_STATUS_CONCAT(a, b) ZKP_STATUS_CONCAT_INNER(a, b)

// Returns the Status from the enclosing function if `expr` is not OK.
#define ZKP_RETURN_IF_ERROR(expr)                      \
  do {                                                 \
    ::zkpipe::Status zkp_status_tmp_ = (expr);         \
    if (!zkp_status_tmp_.ok()) return zkp_status_tmp_; \
  } while (0)

// `lhs = value of rexpr`, or returns its Status. lhs may declare: ZKP_ASSIGN_OR_RETURN(auto x,
// f());
#define ZKP_ASSIGN_OR_RETURN(lhs, rexpr) \
  ZKP_ASSIGN_OR_RETURN_IMPL(ZKP_STATUS_CONCAT(zkp_result_, __LINE__), lhs, rexpr)
#define ZKP_ASSIGN_OR_RETURN_IMPL(tmp, lhs, rexpr) \
  auto tmp = (rexpr);                              \
  if (!tmp.ok()) return tmp.status();              \
  lhs = std::move(tmp).value()
