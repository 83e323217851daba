// The AVX-512 IFMA NTT's own source (engine/crypto/ntt_ifma.cpp), compiled a second time over
// the scalar stand-ins of engine/crypto/ifma_emulation.h, as ifma_emulated_batch_add.cpp does
// for the batched addition (tests/crypto/ntt_test.cpp). Its functions land in
// zkpipe::crypto::emulated (tests/crypto/ifma_emulated.h).
#define ZKP_IFMA_EMULATED 1
#include "engine/crypto/ntt_ifma.cpp"  // NOLINT(bugprone-suspicious-include)
