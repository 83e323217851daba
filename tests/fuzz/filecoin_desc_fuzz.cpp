// tests/fuzz/filecoin_desc_fuzz.cpp: libFuzzer harness for Filecoin proof descriptions (DESC, the
// JSON `zkpipe-tool filecoin inputs|verify` reads): any input goes through public_inputs, which
// parses it as PoRep, PoSt or SnapDeals and derives the inputs (the SDR graph's parents, the
// challenges). A crash, hang, leak or sanitizer report is a bug.
// Thread-safety: libFuzzer calls the entry point from one thread.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "zkpipe/filecoin/verify.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)zkpipe::filecoin::public_inputs(std::string_view(reinterpret_cast<const char*>(data), size),
                                        "fuzz");
  return 0;
}
