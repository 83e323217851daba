// scheduling_section.cpp: the `scheduling` section of a version 1 config (zkpipe/config.h):
//   scheduling:
//     defaults:
//       <proof type>: {priority: critical|high|normal|low, deadline: 20s | none}
// Documented in configs/README.md. Thread-safety: pure functions.
#include <algorithm>

#include "sections.h"
#include "zkpipe/sdk/units.h"

namespace zkpipe::config_detail {

Status parse_scheduling(const YamlReader& r, const Field& section, SchedulingConfig& s) {
  ZKP_ASSIGN_OR_RETURN(const std::vector<Field> fields, r.map_fields(section, {"defaults"}));
  const Field* defaults = find_field(fields, "defaults");
  if (defaults == nullptr) return ok_status();
  ZKP_ASSIGN_OR_RETURN(const std::vector<Field> types, r.map_entries(*defaults));
  for (const Field& type : types) {
    const bool plain =
        !type.key.empty() && std::all_of(type.key.begin(), type.key.end(), [](char c) {
          return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
        });
    if (!plain) {
      return r.error_at(type.key_mark, type.path,
                        "'" + echo_value(type.key) +
                            "' is not a proof type's name (lowercase letters, digits and '_')");
    }
    ScheduleDefault d;
    d.location = r.location(type.mark);
    ZKP_ASSIGN_OR_RETURN(const std::vector<Field> keys,
                         r.map_fields(type, {"priority", "deadline"}));
    if (keys.empty()) return r.error(type, "say a priority, a deadline or both");
    if (const Field* f = find_field(keys, "priority")) {
      ZKP_ASSIGN_OR_RETURN(const std::string text,
                           r.choice(*f, {"critical", "high", "normal", "low"}));
      d.priority = pipeline::parse_priority(text);
    }
    if (const Field* f = find_field(keys, "deadline")) {
      ZKP_ASSIGN_OR_RETURN(const std::string text, r.scalar(*f, "a duration or 'none'"));
      if (text == "none") {
        d.deadline_ms = -1;
      } else {
        Result<int64_t> ms = parse_duration_ms(text);
        if (!ms.ok() || *ms <= 0) {
          return r.error(*f,
                         "'" + echo_value(text) +
                             "' is not a deadline: a duration above 0 (20s, 25m, 1h) or 'none'");
        }
        d.deadline_ms = *ms;
      }
    }
    s.defaults[type.key] = d;
  }
  return ok_status();
}

}  // namespace zkpipe::config_detail
