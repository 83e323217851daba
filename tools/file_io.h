// tools/file_io.h: kept only for engine/cli, which still includes it from here and calls
// tool::write_file: the functions are zkpipe/file_io.h's (zkpipe::read_file, write_file,
// as_bytes). New code includes zkpipe/file_io.h; this file goes once engine/cli does.
// Thread-safety: as zkpipe/file_io.h.
#pragma once

#include "zkpipe/file_io.h"

namespace zkpipe::tool {

using zkpipe::as_bytes;
using zkpipe::read_file;
using zkpipe::write_file;

}  // namespace zkpipe::tool
