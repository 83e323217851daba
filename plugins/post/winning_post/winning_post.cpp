// The `winning_post` proof-type plugin (fallback-PoSt-style WinningPoSt; post/common/shape.h has
// the construction): a request lists the eligible sectors and proves the one the randomness
// draws, many challenges, one partition; parse decodes and fully checks it (a proof of a sector
// that is not the drawn one is refused). Block production waits on it: CRITICAL priority, a
// 20-second deadline unless the request or config says otherwise.
// Commands: `zkpipe-tool proof-type winning_post vanilla|shapes|help`.
#include "post_plugin.h"

namespace {

using namespace zkpipe;
using post::Kind;

constexpr const char* kName = "winning_post";
constexpr Kind kKind = Kind::kWinning;
constexpr plugins::Schedule kSchedule{ZKP_PRIORITY_CRITICAL, 20000};

// post::presets(Kind::kWinning) as a constant table (the self-test checks they agree).
constexpr zkp_preset kPresets[] = {
    {"tiny", "256 B sectors, 1 of 4 drawn, 4 challenges", 1, 0},
    {"2KiB", "2 KiB sectors, 1 of 4 drawn, 16 challenges", 1, 0},
    {"8MiB", "8 MiB sectors, 1 of 4 drawn, 66 challenges", 1, 0},
};

Result<std::unique_ptr<plugins::ProofJob>> parse(std::span<const uint8_t> bytes,
                                                 const std::string& what) {
  return post::parse_request(kKind, bytes, what);
}

Result<std::vector<uint8_t>> sample(const zkp_preset& preset, uint64_t seed) {
  return post::sample_request(kKind, preset, seed);
}

// The preset table, then the tiny sample request (4 sealed 256 B sectors) through parse and a
// witness-mode synthesis: well under a second.
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
