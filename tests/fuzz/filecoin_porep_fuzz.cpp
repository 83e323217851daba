// tests/fuzz/filecoin_porep_fuzz.cpp: libFuzzer harness for the filecoin_porep proof type's
// request (plugins/filecoin porep_request.h): any input is parsed as a request (the C1 output,
// bare or with prover_id and sector_id, JSON or curio's binary form; every vanilla proof checked
// natively) and as a bare C1 output in either form. A crash, hang, leak or sanitizer report is a
// bug. Thread-safety: libFuzzer calls the entry point from one thread.
#include <cstddef>
#include <cstdint>
#include <span>

#include "zkpipe/filecoin_circuit/porep_request.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> bytes(data, size);
  (void)zkpipe::filecoin_circuit::parse_porep_request(bytes, "fuzz");
  (void)zkpipe::filecoin_circuit::parse_commit1_output(bytes, "fuzz");
  (void)zkpipe::filecoin_circuit::parse_commit1_binary(bytes, "fuzz");
  return 0;
}
