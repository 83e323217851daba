// tests/fuzz/post_vanilla_fuzz.cpp: libFuzzer harness for the window_post and winning_post
// vanilla-proof parsers (plugins/post/common), built once per type (ZKPIPE_POST_KIND: 3 window,
// 4 winning). Any input goes through decode_request (binary, or JSON when it starts with '{');
// what decodes is then checked natively. A crash, hang, leak or sanitizer report is a bug.
// Thread-safety: libFuzzer calls the entry point from one thread.
#include <cstddef>
#include <cstdint>
#include <span>

#include "vanilla.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace zkpipe::post;
  constexpr Kind kind = static_cast<Kind>(ZKPIPE_POST_KIND);
  auto v = decode_request(kind, std::span<const uint8_t>(data, size), "fuzz");
  if (v.ok()) (void)check_vanilla(v.value(), "fuzz");
  return 0;
}
