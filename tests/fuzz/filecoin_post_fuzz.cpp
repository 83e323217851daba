// tests/fuzz/filecoin_post_fuzz.cpp: libFuzzer harness for the Filecoin PoSt proof types'
// requests (plugins/filecoin post_request.h): any input is parsed as a Window and as a Winning
// PoSt request (JSON, vanilla proofs decoded and checked natively against the description), and
// as one sector's binary vanilla proof. A crash, hang, leak or sanitizer report is a bug.
// Thread-safety: libFuzzer calls the entry point from one thread.
#include <cstddef>
#include <cstdint>
#include <span>

#include "zkpipe/filecoin_circuit/post_request.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> bytes(data, size);
  (void)zkpipe::filecoin_circuit::parse_post_request(bytes, false, "fuzz");
  (void)zkpipe::filecoin_circuit::parse_post_request(bytes, true, "fuzz");
  (void)zkpipe::filecoin_circuit::decode_sector_proof(bytes, "fuzz");
  return 0;
}
