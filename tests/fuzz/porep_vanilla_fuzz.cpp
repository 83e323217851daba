// tests/fuzz/porep_vanilla_fuzz.cpp: libFuzzer harness for the porep vanilla-proof parsers. Any
// input goes through decode_request (binary, or JSON when it starts with '{'); what decodes is
// then checked natively on one thread. A crash, hang, leak or sanitizer report is a bug.
// Thread-safety: libFuzzer calls the entry point from one thread.
#include <cstddef>
#include <cstdint>
#include <span>

#include "zkpipe/porep/vanilla.h"
#include "zkpipe/sdk/request.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace zkpipe::porep;
  auto v = zkpipe::plugins::decode_request(std::span<const uint8_t>(data, size), "fuzz",
                                           decode_vanilla, vanilla_from_json);
  if (v.ok()) (void)check_vanilla(v.value(), "fuzz", 1);
  return 0;
}
