// The `mimc_jobs` proof-type plugin, for the pipeline's tests only: a request is JSON
// {"rounds": R, "partitions": P, "seed": S, "fail_partition": K, "first_partition": F (both
// optional)}; the request holds the sector's partitions F..F+P-1 (F = 0 by default); every
// partition proves the example MiMC chain of R rounds (zkpipe/groth16/example_circuits.h) with
// public x_0, k and the output; its constants are fixed (one circuit per R), x_0 and k depend on S
// and the partition. Small circuits prove in milliseconds, so tests can run many concurrent jobs
// (also under ThreadSanitizer). "hold" (a path) pauses the second parse, "hold_record" the
// recording of the R1CS (below). "fail_partition"
// makes synthesis of that partition (a position) fail, as a plugin fault. Presets (ABI 1.2):
// "small" and "medium"; a sample request is the JSON of the preset's rounds and partitions with the
// seed's low 32 bits. Built a second time with ZKPIPE_MIMC_BARE as `mimc_bare`: the same proof type
// without presets, with scheduling defaults (ABI 1.3: HIGH, a deadline of one hour) and one command
// for `zkpipe-tool proof-type`: `echo ARGS...` prints "mimc_bare echo: ARGS" and exits 0, `fail`
// exits 3, anything else 2.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <thread>

#include <nlohmann/json.hpp>

#include "zkpipe/groth16/example_circuits.h"
#include "zkpipe/sdk/proof_type_plugin.h"

namespace {

using namespace zkpipe;
using plugins::CircuitCounts;

#if ZKPIPE_MIMC_BARE
constexpr const char* kName = "mimc_bare";
#else
constexpr const char* kName = "mimc_jobs";
#endif
constexpr uint64_t kMaxRounds = 1u << 20;
constexpr uint32_t kMaxPartitions = 64;

constexpr zkp_preset kPresets[] = {
    {"small", "MiMC chain of 8 rounds, 2 partitions (milliseconds)", 2, 0},
    {"medium", "MiMC chain of 1024 rounds, 3 partitions", 3, 0},
};

// Partition `position` of a request with seed S: the circuit's constants from seed 1 (one circuit
// per round count), x_0 and k from S * 1000 + position.
void chain(uint64_t rounds, std::optional<uint64_t> witness_seed, groth16::ConstraintSystem& cs) {
  const Status s = groth16::synthesize_example({"mimc", rounds, 1}, cs, witness_seed);
  if (!s.ok()) throw std::runtime_error(s.to_string());
}

class MimcJob final : public plugins::ProofJob {
 public:
  MimcJob(uint64_t rounds, uint32_t partitions, uint64_t seed, int64_t fail_partition,
          uint32_t first, std::string hold_record)
      : rounds_(rounds),
        partitions_(partitions),
        seed_(seed),
        fail_(fail_partition),
        first_(first),
        hold_record_(std::move(hold_record)) {
    auto cs = groth16::ConstraintSystem::counter();
    synthesize(cs, 0);
    counts_ = {cs.num_inputs(), cs.num_aux(), cs.num_constraints()};
  }
  uint32_t partitions() const override { return partitions_; }
  uint32_t partition_index(uint32_t position) const override { return first_ + position; }
  std::string circuit_id() const override { return "mimc-test-r" + std::to_string(rounds_); }
  CircuitCounts counts() const override { return counts_; }
  void synthesize(groth16::ConstraintSystem& cs, uint32_t position) const override {
    if (static_cast<int64_t>(position) == fail_) {
      throw std::runtime_error("injected synthesis failure of partition " +
                               std::to_string(position));
    }
    chain(rounds_, seed_ * 1000 + position, cs);
  }
  // "hold_record": PATH pauses the recording of the R1CS (what a params setup starts with):
  // it creates PATH.recording and waits (at most 30 s) for PATH.go.
  void synthesize_blank(groth16::ConstraintSystem& cs) const override {
    if (!hold_record_.empty()) {
      namespace fs = std::filesystem;
      std::error_code ec;
      std::ofstream(hold_record_ + ".recording").put('\n');
      for (int i = 0; i < 3000 && !fs::exists(hold_record_ + ".go", ec); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    }
    chain(rounds_, uint64_t{0}, cs);
  }
  std::vector<crypto::Fr> public_inputs(uint32_t position) const override {
    std::vector<crypto::Fr> inputs(counts_.inputs), aux(counts_.aux);
    auto cs = groth16::ConstraintSystem::witness({inputs, aux});
    chain(rounds_, seed_ * 1000 + position, cs);
    return {inputs.begin() + 1, inputs.end()};
  }

 private:
  uint64_t rounds_;
  uint32_t partitions_;
  uint64_t seed_;
  int64_t fail_;
  uint32_t first_;
  std::string hold_record_;
  CircuitCounts counts_;
};

// "hold": PATH lets a test act while a job is being parsed for the second time (the first parse
// is the submit's check, the second the engine's at claim): the first parse creates
// PATH.submitted; the second creates PATH.parsing and waits (at most 30 s) for PATH.go.
void hold_second_parse(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(path + ".submitted", ec)) {
    std::ofstream(path + ".submitted").put('\n');
    return;
  }
  std::ofstream(path + ".parsing").put('\n');
  for (int i = 0; i < 3000 && !fs::exists(path + ".go", ec); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

Result<std::unique_ptr<plugins::ProofJob>> parse(std::span<const uint8_t> bytes,
                                                 const std::string& what) {
  const auto j = nlohmann::json::parse(bytes.begin(), bytes.end(), nullptr, false);
  if (j.is_discarded() || !j.is_object()) return invalid_argument(what + ": not a JSON object");
  auto get = [&](const char* key, uint64_t min, uint64_t max) -> Result<uint64_t> {
    if (!j.contains(key) || !j[key].is_number_unsigned()) {
      return invalid_argument(what + ": " + key + ": expected an unsigned integer");
    }
    const uint64_t v = j[key].get<uint64_t>();
    if (v < min || v > max) return invalid_argument(what + ": " + key + ": out of range");
    return v;
  };
  ZKP_ASSIGN_OR_RETURN(const uint64_t rounds, get("rounds", 1, kMaxRounds));
  ZKP_ASSIGN_OR_RETURN(const uint64_t partitions, get("partitions", 1, kMaxPartitions));
  ZKP_ASSIGN_OR_RETURN(const uint64_t seed, get("seed", 0, UINT32_MAX));
  int64_t fail = -1;
  if (j.contains("fail_partition")) {
    ZKP_ASSIGN_OR_RETURN(const uint64_t k, get("fail_partition", 0, kMaxPartitions));
    fail = static_cast<int64_t>(k);
  }
  if (j.contains("hold")) {
    if (!j["hold"].is_string()) return invalid_argument(what + ": hold: expected a path");
    hold_second_parse(j["hold"].get<std::string>());
  }
  uint64_t first = 0;
  if (j.contains("first_partition")) {
    ZKP_ASSIGN_OR_RETURN(first, get("first_partition", 0, kMaxPartitions));
  }
  std::string hold_record;
  if (j.contains("hold_record")) {
    if (!j["hold_record"].is_string()) {
      return invalid_argument(what + ": hold_record: expected a path");
    }
    hold_record = j["hold_record"].get<std::string>();
  }
  return std::unique_ptr<plugins::ProofJob>(new MimcJob(rounds, static_cast<uint32_t>(partitions),
                                                        seed, fail, static_cast<uint32_t>(first),
                                                        std::move(hold_record)));
}

Result<std::vector<uint8_t>> sample(const zkp_preset& preset, uint64_t seed) {
  const uint64_t rounds = std::string_view(preset.name) == "small" ? 8 : 1024;
  const nlohmann::json j = {
      {"rounds", rounds}, {"partitions", preset.partitions}, {"seed", seed & UINT32_MAX}};
  const std::string text = j.dump();
  return std::vector<uint8_t>(text.begin(), text.end());
}

Status run_self_test() {
  return plugins::self_test_sample<parse, sample>(kPresets, "small", 7);
}

#if ZKPIPE_MIMC_BARE
int command(std::span<const std::string> args) {
  if (args.size() >= 2 && args[1] == "echo") {
    std::string line;
    for (size_t i = 2; i < args.size(); ++i) line += (i > 2 ? " " : "") + args[i];
    std::printf("%s echo: %s\n", args[0].c_str(), line.c_str());
    return 0;
  }
  if (args.size() == 2 && args[1] == "fail") return 3;
  std::fprintf(stderr, "%s: usage: echo ARGS... | fail\n", args[0].c_str());
  return 2;
}
constexpr plugins::Schedule kSchedule{ZKP_PRIORITY_HIGH, 3'600'000};
#endif

}  // namespace

#if ZKPIPE_MIMC_BARE
ZKP_EXPORT_PROOF_TYPE_TABLE(kName, "0.1.0", parse, run_self_test, nullptr, 0u, nullptr, kSchedule,
                            (plugins::CommandEntry<command>::command), nullptr);
#else
ZKP_EXPORT_PROOF_TYPE_WITH_PRESETS(kName, "0.1.0", parse, run_self_test, kPresets, sample);
#endif
