// zkpipe/sector/sector_file.h: the sealed-sector cache `zkpipe-tool proof-type porep seal` writes
// and `porep vanilla` reads: the shape, the replica id, the data and every layer's labels in the
// sectioned container (magic "ZKPSECTR", per-section SHA-256). Trees are rebuilt on load.
// Thread-safety: reentrant.
#pragma once

#include <string>

#include "zkpipe/sector/seal.h"

namespace zkpipe::porep {

Status write_sector(const std::string& path, const SealedSector& sector);
// Checks structure, checksums, the shape and that every element is canonical (errors name the
// file, section and byte offset), then rebuilds the trees.
Result<SealedSector> load_sector(const std::string& path, unsigned threads = 0);

}  // namespace zkpipe::porep
