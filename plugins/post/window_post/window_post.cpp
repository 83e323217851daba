// The `window_post` proof-type plugin (fallback-PoSt-style WindowPoSt; post/common/shape.h has
// the construction): a request is a vanilla-proof file of many sectors (binary, or JSON when it
// starts with '{'), parse decodes and fully checks it, partition k proves sectors [k*S, (k+1)*S).
// Deadline work: HIGH priority, a 20-minute deadline unless the request or config says otherwise.
// Commands: `zkpipe-tool proof-type window_post vanilla|shapes|help`.
#include "post_plugin.h"

namespace {

using namespace zkpipe;
using post::Kind;

constexpr const char* kName = "window_post";
constexpr Kind kKind = Kind::kWindow;
constexpr plugins::Schedule kSchedule{ZKP_PRIORITY_HIGH, 20 * 60 * 1000};

// post::presets(Kind::kWindow) as a constant table (the self-test checks they agree).
constexpr zkp_preset kPresets[] = {
    {"tiny", "256 B sectors, 2 sectors x 2 challenges per partition, 3 sectors (padded)", 2, 0},
    {"2KiB", "2 KiB sectors, 4 sectors x 5 challenges per partition, 11 sectors (padded)", 3, 0},
    {"8MiB", "8 MiB sectors, 8 sectors x 10 challenges per partition, 15 sectors (padded)", 2, 0},
    {"8MiB-64", "8 MiB sectors, 64 sectors x 10 challenges per partition, 127 sectors (padded)", 2,
     0},
};

Result<std::unique_ptr<plugins::ProofJob>> parse(std::span<const uint8_t> bytes,
                                                 const std::string& what) {
  return post::parse_request(kKind, bytes, what);
}

Result<std::vector<uint8_t>> sample(const zkp_preset& preset, uint64_t seed) {
  return post::sample_request(kKind, preset, seed);
}

// The preset table, then the tiny sample request (3 sealed 256 B sectors) through parse and a
// witness-mode synthesis of partition 0: well under a second.
Status run_self_test() {
  ZKP_RETURN_IF_ERROR(post::check_preset_table(kKind, kPresets));
  return plugins::self_test_sample<parse, sample>(kPresets, "tiny", 1);
}

int command(std::span<const std::string> args) {
  return post::run_command(kKind, args);
}

}  // namespace

ZKP_EXPORT_PROOF_TYPE_SCHEDULED(kName, "0.1.0", parse, run_self_test, kPresets, sample, kSchedule,
                                command);
