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

// A plugin name ([a-z0-9_]+), as a manifest's name.
Result<std::string> plugin_name(const YamlReader& r, const Field& f, std::string_view expected);

// A size > 0. With `allow_auto`, "auto" gives nullopt and the unit list in errors says so.
Result<std::optional<uint64_t>> positive_size(const YamlReader& r, const Field& f, bool allow_auto);

// A directory: relative paths resolve against `base`; stored absolute and normalized.
Result<std::string> resolve_dir(const YamlReader& r, const Field& f,
                                const std::filesystem::path& base);

// An integer in [min, max] into `out`; nothing when `f` is null.
Status read_count(const YamlReader& r, const Field* f, uint64_t min, uint64_t max, uint32_t& out);
// A duration ("30s", "5m"); "infinite" (-1) only with `allow_infinite`.
Status parse_duration(const YamlReader& r, const Field& f, bool allow_infinite, int64_t& out);

// The `store` section (store_section.cpp).
Status parse_store(const YamlReader& r, const Field& section, const std::filesystem::path& base,
                   StoreConfig& s);

// The `scheduling` section (scheduling_section.cpp).
Status parse_scheduling(const YamlReader& r, const Field& section, SchedulingConfig& s);

// Reads the optional `compute`, `pipeline`, `params`, `server` and `store` sections of the root's
// fields.
Status parse_pipeline_sections(const YamlReader& r, const std::vector<Field>& root_fields,
                               const std::filesystem::path& base, Config& config);

}  // namespace zkpipe::config_detail
