// engine/pipeline/params_files.h: what the params cache keeps beside a params file: the
// `.validated` stamp (a full point check passed for exactly this file) and the advisory lock that
// lets one process make or check a circuit's params while others wait, then use what it made.
// Thread-safety: reentrant; ParamsLock excludes other processes (and other open file descriptions).
#pragma once

#include <string>

#include "zkpipe/sdk/status.h"

namespace zkpipe::pipeline {

// True when PATH.validated holds params_stamp(path) of the file as it is now.
bool stamp_matches(const std::string& path);
// Records params_stamp(path) in PATH.validated (atomically; a failure is logged, not fatal: the
// next open checks fully again).
void write_stamp(const std::string& path);
// Removes PATH.validated (the file is no longer trusted).
void drop_stamp(const std::string& path);

// Under the ParamsLock: removes what writers of PATH that were killed left behind
// (PATH.tmp.<pid>.*, PATH.csr.tmp.<pid>.*, PATH.validated.tmp.<pid>.* whose process is gone);
// returns how many.
size_t remove_stale_temporaries(const std::string& path);

// flock(LOCK_EX) on PATH.lock, held until destruction; waits for another holder.
class ParamsLock {
 public:
  static Result<ParamsLock> acquire(const std::string& path);
  ParamsLock(ParamsLock&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  ParamsLock& operator=(ParamsLock&&) = delete;
  ParamsLock(const ParamsLock&) = delete;
  ~ParamsLock();

 private:
  explicit ParamsLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace zkpipe::pipeline
