// tests/fuzz/filecoin_snapdeals_fuzz.cpp: libFuzzer harness for the filecoin_snapdeals proof
// type's request (plugins/filecoin vanilla_update.h): any input is parsed as a request (JSON,
// vanilla partition proofs decoded and checked natively against the description, of either
// variant) and as one partition's binary vanilla proof in both layouts (SHA-256 and Poseidon). A
// crash, hang, leak or sanitizer report is a bug. Thread-safety: libFuzzer calls the entry point
// from one thread.
#include <cstddef>
#include <cstdint>
#include <span>

#include "zkpipe/filecoin_circuit/vanilla_update.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> bytes(data, size);
  (void)zkpipe::filecoin_circuit::parse_update_request(bytes, "fuzz");
  (void)zkpipe::filecoin_circuit::decode_update_proof(bytes, "fuzz");
  (void)zkpipe::filecoin_circuit::decode_update_proof(bytes, "fuzz", true);
  return 0;
}
