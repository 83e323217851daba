// engine/crypto/ifma_variant.h (private to zkpipe_crypto and its tests): ZKP_IFMA_VARIANT, the
// inline namespace of the IFMA kernels' exported functions: `native` (AVX-512, the library's) or,
// compiled with ZKP_IFMA_EMULATED, `emulated` (scalar stand-ins, tests only; ifma_lanes.h), so
// both variants link into one test binary. Thread-safety: a macro.
#pragma once

#if defined(ZKP_IFMA_EMULATED)
#define ZKP_IFMA_VARIANT emulated
#else
#define ZKP_IFMA_VARIANT native
#endif
