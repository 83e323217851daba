// engine/files/output_file.cpp: output files written through a unique temporary name and a rename,
// only over regular files or missing paths (see zkpipe/sdk/output_file.h).
#include "zkpipe/sdk/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <system_error>

namespace zkpipe {
namespace {

std::string label(std::string_view what, const std::string& path) {
  return what.empty() ? path : std::string(what) + " " + path;
}

const char* kind_of(mode_t m) {
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISDIR(m)) return "a directory";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISSOCK(m)) return "a socket";
  if (S_ISREG(m)) return "a regular file";
  return "of an unknown kind";
}

// An errno of creating or writing a file: a full disk is RESOURCE_EXHAUSTED, a bad place
// (missing or read-only directory, no permission) INVALID_ARGUMENT, anything else INTERNAL.
Status errno_status(int err, const std::string& message) {
  const std::string m = message + ": " + std::strerror(err);
  if (err == ENOSPC || err == EDQUOT) return resource_exhausted(m);
  if (err == ENOENT || err == ENOTDIR || err == EACCES || err == EPERM || err == EROFS ||
      err == EISDIR || err == ELOOP || err == ENAMETOOLONG) {
    return invalid_argument(m);
  }
  return internal_error(m);
}

// `where` names the path as given (with its option), `target` what it resolves to.
Status refuse_non_regular(const std::string& path, const std::string& target,
                          const std::string& where) {
  struct stat st {};
  if (::stat(target.c_str(), &st) != 0) return ok_status();  // missing: created by the write
  if (S_ISREG(st.st_mode)) return ok_status();
  return invalid_argument(where + ": " + (target == path ? "" : "(-> " + target + ") ") + "is " +
                          kind_of(st.st_mode) + ", not a regular file: refusing to replace it");
}

}  // namespace

Result<std::string> resolve_output_path(const std::string& path) {
  std::filesystem::path p = path;
  for (int hops = 0; hops <= 40; ++hops) {
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return p.string();
    std::error_code ec;
    const std::filesystem::path next = std::filesystem::read_symlink(p, ec);
    if (ec) return invalid_argument(path + ": cannot read the symlink " + p.string());
    p = next.is_absolute() ? next : p.parent_path() / next;
  }
  return invalid_argument(path + ": symlink loop (more than 40 links)");
}

Result<TempOutput> TempOutput::create(const std::string& path, std::string_view what) {
  const std::string where = label(what, path);
  if (path.empty()) return invalid_argument(where + ": empty path");
  ZKP_ASSIGN_OR_RETURN(std::string target, resolve_output_path(path));
  ZKP_RETURN_IF_ERROR(refuse_non_regular(path, target, where));
  thread_local std::mt19937_64 rng(std::random_device{}() ^ static_cast<uint64_t>(::getpid()));
  for (int attempt = 0; attempt < 16; ++attempt) {
    char suffix[48];
    std::snprintf(suffix, sizeof suffix, ".tmp.%d.%016llx", static_cast<int>(::getpid()),
                  static_cast<unsigned long long>(rng()));
    std::string temp = target + suffix;
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0) return TempOutput(std::move(target), std::move(temp), fd, where);
    if (errno != EEXIST) {
      return errno_status(errno, where + ": cannot create a file in " +
                                     std::filesystem::path(target).parent_path().string());
    }
  }
  return internal_error(where + ": no unique temporary name after 16 tries");
}

TempOutput::TempOutput(TempOutput&& o) noexcept
    : target_(std::move(o.target_)),
      temp_(std::move(o.temp_)),
      fd_(o.fd_),
      label_(std::move(o.label_)),
      committed_(o.committed_) {
  o.fd_ = -1;
  o.committed_ = true;  // the moved-from object removes nothing
}

TempOutput::~TempOutput() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_) ::unlink(temp_.c_str());
}

Status TempOutput::commit() {
  if (committed_ || fd_ < 0) return failed_precondition(label_ + ": committed twice");
  if (::fsync(fd_) != 0) return errno_status(errno, label_ + ": fsync failed");
  const int rc = ::close(fd_);
  fd_ = -1;
  if (rc != 0) return errno_status(errno, label_ + ": close failed");
  // Checked again: something may have been put there while we wrote.
  ZKP_RETURN_IF_ERROR(refuse_non_regular(target_, target_, label_));
  if (std::rename(temp_.c_str(), target_.c_str()) != 0) {
    return errno_status(errno, label_ + ": cannot rename " + temp_ + " into place");
  }
  committed_ = true;
  return ok_status();
}

Status check_output_path(const std::string& path, std::string_view what) {
  return TempOutput::create(path, what).status();  // the probe is removed at once
}

Status check_output_dir(const std::string& dir, std::string_view what) {
  const std::string where = label(what, dir);
  if (dir.empty()) return invalid_argument(where + ": empty path");
  struct stat st {};
  if (::stat(dir.c_str(), &st) == 0 && !S_ISDIR(st.st_mode)) {
    return invalid_argument(where + ": is " + std::string(kind_of(st.st_mode)) +
                            ", not a directory");
  }
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return errno_status(ec.value(), where + ": cannot create the directory");
  return check_output_path((std::filesystem::path(dir) / ".zkpipe-probe").string(), what);
}

Status write_output_file(const std::string& path, std::string_view bytes, std::string_view what) {
  ZKP_ASSIGN_OR_RETURN(TempOutput out, TempOutput::create(path, what));
  const std::string where = label(what, path);
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(out.fd(), bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno_status(errno, where + ": write failed");
    done += static_cast<size_t>(n);
  }
  return out.commit();
}

}  // namespace zkpipe
