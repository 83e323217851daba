// zkpipe/sdk/output_file.h: writing a program's output files without harm. A write goes to a
// temporary file with a unique name (pid + random) beside the destination, is fsynced and renamed
// over it only when complete, and only when the destination is a regular file or does not exist:
// a device, directory, FIFO or socket is refused, never replaced; a symlink is followed (its final
// target is written, as a shell's `>` does). check_output_path / check_output_dir tell before any
// work is done whether a write could succeed, by creating and removing a file where it would go.
// Thread-safety: reentrant; two writers of one destination each rename a complete file.
#pragma once

#include <string>
#include <string_view>

#include "zkpipe/sdk/status.h"

namespace zkpipe {

// The file a write to `path` replaces: `path`, or the end of its chain of symlinks.
// INVALID_ARGUMENT naming `path` for a symlink loop (or a chain of more than 40 links).
Result<std::string> resolve_output_path(const std::string& path);

// OK when writing `path` can succeed now: the destination is missing or a regular file, and its
// directory takes a new file. INVALID_ARGUMENT ("is a character device, not a regular file:
// refusing to replace it") or the errno of the probe (a missing or read-only directory), the
// message prefixed with `what` (e.g. "--out") and the path.
Status check_output_path(const std::string& path, std::string_view what = {});

// OK when `dir` is (or was just created as, with its parents) a directory that takes new files.
Status check_output_dir(const std::string& dir, std::string_view what = {});

// A complete write of `bytes` to `path` as above; nothing replaced on any failure (ENOSPC, EIO).
Status write_output_file(const std::string& path, std::string_view bytes,
                         std::string_view what = {});

// A temporary file beside `path`'s destination for a streaming writer: write through fd(), then
// commit() (fsync, close, rename over the destination); removed if never committed.
class TempOutput {
 public:
  static Result<TempOutput> create(const std::string& path, std::string_view what = {});
  TempOutput(TempOutput&& o) noexcept;
  TempOutput& operator=(TempOutput&&) = delete;
  TempOutput(const TempOutput&) = delete;
  ~TempOutput();

  int fd() const { return fd_; }
  const std::string& temp_path() const { return temp_; }
  const std::string& target() const { return target_; }
  Status commit();

 private:
  TempOutput(std::string target, std::string temp, int fd, std::string label)
      : target_(std::move(target)), temp_(std::move(temp)), fd_(fd), label_(std::move(label)) {}
  std::string target_, temp_;
  int fd_ = -1;
  std::string label_;  // `what` + path, for messages
  bool committed_ = false;
};

}  // namespace zkpipe
