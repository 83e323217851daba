#include <catch2/catch.hpp>

#include "zkpipe/sdk.h"
#include "zkpipe/status.h"

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
