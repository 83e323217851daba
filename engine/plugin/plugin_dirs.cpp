// Where plugins come from (plugin_search_dirs, default_plugin_dirs) and the checks on what a
// plugin path names before anything opens it: a directory to search, a regular file to read.
// Thread-safety: pure functions (read the file system and $ZKPIPE_PLUGIN_DIR).
#include <dirent.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "zkpipe/plugin.h"

namespace zkpipe {
namespace fs = std::filesystem;
namespace {

std::string type_name(fs::file_type t) {
  switch (t) {
    case fs::file_type::regular:
      return "a regular file";
    case fs::file_type::directory:
      return "a directory";
    case fs::file_type::symlink:
      return "a symbolic link";
    case fs::file_type::block:
      return "a block device";
    case fs::file_type::character:
      return "a character device";
    case fs::file_type::fifo:
      return "a FIFO (named pipe)";
    case fs::file_type::socket:
      return "a socket";
    default:
      return "a file of unknown type";
  }
}

// What is at `path`, following symbolic links; a dangling link is reported as such.
struct PathKind {
  fs::file_type type = fs::file_type::none;  // of the target; not_found when nothing is there
  bool dangling_link = false;
  std::string link_target;
  std::error_code error;  // set when the path could not be examined at all
};

PathKind examine(const std::string& path) {
  PathKind k;
  std::error_code ec;
  const fs::file_status link = fs::symlink_status(path, ec);
  if (link.type() == fs::file_type::not_found) {
    k.type = fs::file_type::not_found;
    return k;
  }
  if (ec) {
    k.error = ec;
    return k;
  }
  const fs::file_status target = fs::status(path, ec);
  k.type = target.type();
  if (link.type() == fs::file_type::symlink && target.type() == fs::file_type::not_found) {
    k.dangling_link = true;
    k.link_target = fs::read_symlink(path, ec).string();
  } else if (ec) {
    k.error = ec;
  }
  return k;
}

Status checked_dir(const std::string& label, const std::string& dir) {
  const Status s = check_plugin_dir(dir);
  if (s.ok()) return s;
  return Status(s.code(), label + ": " + s.message());
}

}  // namespace

Status check_regular_file(const std::string& path, const std::string& what) {
  const PathKind k = examine(path);
  if (k.type == fs::file_type::not_found && !k.dangling_link)
    return not_found(path + ": " + what + " missing");
  if (k.error)
    return failed_precondition(path + ": cannot examine " + what + ": " + k.error.message());
  if (k.dangling_link) {
    return invalid_argument(path + ": " + what + " is a dangling symbolic link (to " +
                            k.link_target + "); refused before opening it");
  }
  if (k.type != fs::file_type::regular) {
    return invalid_argument(path + ": " + what + " is " + type_name(k.type) +
                            ", not a regular file; refused before opening it");
  }
  return ok_status();
}

Status check_plugin_dir(const std::string& dir) {
  const PathKind k = examine(dir);
  if (k.dangling_link) {
    return failed_precondition(dir + ": plugin directory is a dangling symbolic link (to " +
                               k.link_target + ")");
  }
  if (k.type == fs::file_type::not_found)
    return failed_precondition(dir + ": plugin directory does not exist");
  if (k.error)
    return failed_precondition(dir + ": cannot examine plugin directory: " + k.error.message());
  if (k.type != fs::file_type::directory) {
    return failed_precondition(dir + ": plugin directory is " + type_name(k.type) +
                               ", not a directory");
  }
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) {
    return failed_precondition(dir + ": plugin directory cannot be read: " + std::strerror(errno));
  }
  ::closedir(d);
  return ok_status();
}

Result<std::vector<std::string>> plugin_search_dirs(const std::vector<PluginDirList>& named) {
  std::vector<std::string> dirs;
  for (const PluginDirList& list : named) {
    for (size_t i = 0; i < list.dirs.size(); ++i) {
      ZKP_RETURN_IF_ERROR(checked_dir(list.origin + "[" + std::to_string(i) + "]", list.dirs[i]));
      dirs.push_back(list.dirs[i]);
    }
  }
  if (!dirs.empty()) return dirs;
  if (const char* env = std::getenv("ZKPIPE_PLUGIN_DIR"); env != nullptr && *env != '\0')
    ZKP_RETURN_IF_ERROR(checked_dir("$ZKPIPE_PLUGIN_DIR", env));
  return default_plugin_dirs();
}

std::vector<std::string> default_plugin_dirs() {
  if (const char* env = std::getenv("ZKPIPE_PLUGIN_DIR"); env != nullptr && *env != '\0') {
    return {env};
  }
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    for (const char* rel : {"../plugins", "../lib/zkpipe/plugins"}) {
      const fs::path d = exe.parent_path() / rel;
      if (fs::is_directory(d, ec)) return {fs::weakly_canonical(d, ec).string()};
    }
  }
  return {};
}

}  // namespace zkpipe
