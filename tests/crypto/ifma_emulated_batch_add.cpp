// The AVX-512 IFMA batched affine addition's own source (engine/crypto/batch_add_ifma.cpp),
// compiled a second time over the scalar stand-ins of engine/crypto/ifma_emulation.h, so that
// the kernel's arithmetic and data movement are tested on CPUs without IFMA
// (tests/crypto/batch_add_ifma_test.cpp). Its functions land in msm_detail::emulated
// (tests/crypto/ifma_emulated.h). Not in a unity batch: the macro changes what the sources mean.
#define ZKP_IFMA_EMULATED 1
#include "engine/crypto/batch_add_ifma.cpp"  // NOLINT(bugprone-suspicious-include)
