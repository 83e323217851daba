// The host's one copy of the larger Fp12 operations (explicit instantiation of the template
// defined in zkpipe/crypto/fp12.h, which every other host file declares extern).
// Thread-safety: pure functions.
#include "zkpipe/crypto/fp12.h"

namespace zkpipe::crypto {

template struct Fp12T<Fp2>;

}  // namespace zkpipe::crypto
