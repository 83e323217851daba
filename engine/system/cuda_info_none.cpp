// engine/system/cuda_info_none.cpp: read_cuda_info() of a build without CUDA (ZKPIPE_CUDA=OFF
// or no nvcc). It reports that CUDA is not built in, so check-system and the CUDA backends can
// say why there is no GPU instead of guessing. Thread-safety: pure; safe from any thread.
#include "zkpipe/system.h"

namespace zkpipe {

CudaInfo read_cuda_info() {
  CudaInfo info;
  info.built_with_cuda = false;
  info.status = unavailable("zkpipe was built without CUDA (ZKPIPE_CUDA=OFF)");
  return info;
}

}  // namespace zkpipe
