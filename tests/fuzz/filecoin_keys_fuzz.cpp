// tests/fuzz/filecoin_keys_fuzz.cpp: libFuzzer harness for Filecoin's key and proof readers: any
// input is read as a verifying key (bellperson .vk or the compressed layout) and as proof bytes,
// and, when it names a plausible .params, through the .params reader from a file. A crash, hang,
// leak or sanitizer report is a bug.
// Thread-safety: libFuzzer calls the entry point from one thread.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>

#include "zkpipe/filecoin/params_format.h"
#include "zkpipe/filecoin/proof_format.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace zkpipe::filecoin;
  const std::span<const uint8_t> in(data, size);
  (void)decode_any_verifying_key(in);
  (void)decode_proofs(in);
  // The .params reader takes a path: the input as a file (unchecked first, as Filecoin reads).
  static const std::string path = "/tmp/zkpipe_fuzz_params_" + std::to_string(::getpid());
  if (FILE* f = std::fopen(path.c_str(), "wb")) {
    std::fwrite(data, 1, size, f);
    std::fclose(f);
    (void)read_params(path, false);
  }
  return 0;
}
