// sections.h: private to engine/config. The value readers shared by the config's sections and
// the reader of the pipeline's sections (`compute`, `pipeline`, `params`) in
// pipeline_sections.cpp. The schema is documented in configs/README.md.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "yaml_strict.h"
#include "zkpipe/config.h"

namespace zkpipe::config_detail {

// A size > 0. With `allow_auto`, "auto" gives nullopt and the unit list in errors says so.
Result<std::optional<uint64_t>> positive_size(const YamlReader& r, const Field& f, bool allow_auto);

// A directory: relative paths resolve against `base`; stored absolute and normalized.
Result<std::string> resolve_dir(const YamlReader& r, const Field& f,
                                const std::filesystem::path& base);

// Reads the optional `compute`, `pipeline`, `params` and `server` sections of the root's fields.
Status parse_pipeline_sections(const YamlReader& r, const std::vector<Field>& root_fields,
                               const std::filesystem::path& base, Config& config);

}  // namespace zkpipe::config_detail
