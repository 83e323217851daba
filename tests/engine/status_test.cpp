#include <cstdint>

#include <catch2/catch.hpp>

#include "zkpipe/sdk/sdk.h"
#include "zkpipe/sdk/status.h"

namespace {
zkpipe::Result<int> half(int x) {
  if (x % 2 != 0) return zkpipe::invalid_argument("odd: " + std::to_string(x));
  return x / 2;
}
zkpipe::Status quarter(int x, int* out) {
  ZKP_ASSIGN_OR_RETURN(int h, half(x));
  ZKP_ASSIGN_OR_RETURN(*out, half(h));
  return zkpipe::ok_status();
}
}  // namespace

TEST_CASE("Status: macros propagate the first error with its message", "[status]") {
  int out = 0;
  CHECK(quarter(8, &out).ok());
  CHECK(out == 2);
  zkpipe::Status s = quarter(6, &out);
  CHECK(s.code() == zkpipe::Code::kInvalidArgument);
  CHECK(s.message() == "odd: 3");
  CHECK(s.to_string() == "INVALID_ARGUMENT: odd: 3");
  CHECK(s.with_context("f.yaml:1:2").message() == "f.yaml:1:2: odd: 3");
}

TEST_CASE("SDK: guard turns exceptions and statuses into codes and truncated messages",
          "[status]") {
  char buf[8];
  zkp_error err{buf, sizeof buf};
  CHECK(zkpipe::sdk::guard(err, [] {}) == ZKP_OK);
  CHECK(zkpipe::sdk::guard(err, [] { return zkpipe::unavailable("no device here"); }) ==
        ZKP_ERR_UNAVAILABLE);
  CHECK(std::string(buf) == "no devi");  // 7 chars + NUL
  CHECK(zkpipe::sdk::guard(err, []() -> zkpipe::Status { throw std::runtime_error("boom"); }) ==
        ZKP_ERR_INTERNAL);
  CHECK(zkpipe::sdk::guard(err, []() -> zkpipe::Status { throw std::bad_alloc(); }) ==
        ZKP_ERR_RESOURCE_EXHAUSTED);
  CHECK(zkpipe::sdk::guard(zkp_error{nullptr, 0}, []() -> zkpipe::Status { throw 42; }) ==
        ZKP_ERR_INTERNAL);
}

TEST_CASE("Status: a plugin's code outside the known ones becomes INTERNAL naming it", "[status]") {
  using zkpipe::Code;
  using zkpipe::code_from_int;
  using zkpipe::status_from_plugin;
  // Every zkp_status code maps to its Code; nothing else does.
  for (int32_t rc = ZKP_OK; rc <= ZKP_ERR_ALREADY_EXISTS; ++rc) {
    REQUIRE(code_from_int(rc).has_value());
    CHECK(static_cast<int32_t>(*code_from_int(rc)) == rc);
  }
  for (int32_t rc : {-1, ZKP_ERR_ALREADY_EXISTS + 1, 42, INT32_MIN, INT32_MAX}) {
    CHECK_FALSE(code_from_int(rc).has_value());
  }

  CHECK(status_from_plugin(ZKP_OK, "memory backend 'x': release", "ignored").ok());
  const zkpipe::Status known =
      status_from_plugin(ZKP_ERR_RESOURCE_EXHAUSTED, "memory backend 'x': allocate", "over cap");
  CHECK(known.code() == Code::kResourceExhausted);
  CHECK(known.message() == "memory backend 'x': allocate: over cap");
  // A message that already starts with what it is about is not prefixed twice.
  const zkpipe::Status named =
      status_from_plugin(ZKP_ERR_INVALID_ARGUMENT, "v.bin", "v.bin: byte offset 40: not canonical");
  CHECK(named.message() == "v.bin: byte offset 40: not canonical");
  CHECK(status_from_plugin(ZKP_ERR_INVALID_ARGUMENT, "v.bin", "v.bin.old: x").message() ==
        "v.bin: v.bin.old: x");

  const zkpipe::Status odd = status_from_plugin(42, "memory backend 'x': allocate", "huh");
  CHECK(odd.code() == Code::kInternal);
  CHECK(
      odd.message() ==
      "memory backend 'x': allocate: returned 42, which is no zkp_status code (its message: huh)");
  const zkpipe::Status negative = status_from_plugin(-3, "proof type 'p': parse", "");
  CHECK(negative.code() == Code::kInternal);
  CHECK(negative.message() == "proof type 'p': parse: returned -3, which is no zkp_status code");
  CHECK(negative.to_string().starts_with("INTERNAL: "));
}
