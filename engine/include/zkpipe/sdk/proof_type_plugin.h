// zkpipe/sdk/proof_type_plugin.h: the C ABI glue every proof-type plugin shares
// (zkpipe/sdk/abi/proof_type.h). A plugin implements ProofJob (its parsed request) and a parse
// function; ProofTypeEntries<Parse> supplies the exported entry points: guard every call, size-
// check every buffer, run witness-only synthesis into the engine's buffers, and keep a recorded
// R1CS alive behind the view it hands out. A plugin with presets (ABI 1.2) also gives a constant
// zkp_preset table and a sample function; SampleRequestEntry<Sample, Presets> checks the preset
// name and hands the bytes to the engine's writer. Installed with the SDK as
// zkpipe/sdk/proof_type_plugin.h: it includes only installed headers.
// Thread-safety: as the ABI says; a ProofJob is immutable after parse.
#pragma once

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "zkpipe/groth16/constraint_system.h"
#include "zkpipe/sdk/abi/proof_type.h"
#include "zkpipe/sdk/circuit_id.h"
#include "zkpipe/sdk/sdk.h"

namespace zkpipe::plugins {

using crypto::Fr;
using groth16::ConstraintSystem;

static_assert(sizeof(zkp_fr) == sizeof(Fr) && std::is_trivially_copyable_v<Fr>);

struct CircuitCounts {
  uint32_t inputs = 0;  // the one included
  uint32_t aux = 0;
  uint64_t constraints = 0;
};

class ProofJob {
 public:
  virtual ~ProofJob() = default;
  virtual uint32_t partitions() const = 0;
  virtual std::string circuit_id() const = 0;
  virtual CircuitCounts counts() const = 0;
  // Partition `position` (< partitions()) in any mode.
  virtual void synthesize(ConstraintSystem& cs, uint32_t position) const = 0;
  // The circuit with blank values (its shape only), for record mode.
  virtual void synthesize_blank(ConstraintSystem& cs) const = 0;
  virtual std::vector<Fr> public_inputs(uint32_t position) const = 0;
  // The index in its sector of partition `position` (zkp_proof_type.partition_index); distinct
  // per job. The default suits a request that always holds partitions 0..N-1 in order.
  virtual uint32_t partition_index(uint32_t position) const { return position; }
};

// The counts of a circuit id, computed by `count` (a counting run of the whole circuit, which
// still computes every witness value: up to a few hundred ms for large shapes) the first time
// the id is seen and kept for the life of the process, so parse does not repeat it per request.
// Thread-safe; `count` runs outside the lock.
template <typename Count>
CircuitCounts counts_for(const std::string& circuit_id, Count&& count) {
  static std::mutex mu;
  static std::map<std::string, CircuitCounts> known;
  {
    std::lock_guard<std::mutex> lock(mu);
    if (auto it = known.find(circuit_id); it != known.end()) return it->second;
  }
  const CircuitCounts c = count();
  std::lock_guard<std::mutex> lock(mu);
  known.emplace(circuit_id, c);
  return c;
}

// A self-test step every proof type shares: witness-only synthesis of partition 0 of a parsed
// job allocates exactly the counted sizes, and its public inputs are what a verifier derives.
inline Status self_test_job(const ProofJob& job) {
  const CircuitCounts c = job.counts();
  std::vector<Fr> inputs(c.inputs), aux(c.aux);
  auto cs = ConstraintSystem::witness({inputs, aux});
  job.synthesize(cs, 0);
  ZKP_RETURN_IF_ERROR(cs.finish());
  if (cs.num_inputs() != c.inputs || cs.num_aux() != c.aux ||
      cs.num_constraints() != c.constraints) {
    return internal_error("self-test: witness synthesis does not match the counted circuit");
  }
  std::vector<Fr> x = job.public_inputs(0);
  if (x.size() + 1 != inputs.size() || !std::equal(x.begin(), x.end(), inputs.begin() + 1)) {
    return internal_error("self-test: the synthesized public inputs are not the derived ones");
  }
  return ok_status();
}

}  // namespace zkpipe::plugins

// The ABI's opaque types, defined by the glue.
struct zkp_job {
  std::unique_ptr<zkpipe::plugins::ProofJob> job;
};
struct zkp_r1cs {
  zkpipe::groth16::R1cs r1cs;
};

namespace zkpipe::plugins {

// Parse: Result<std::unique_ptr<ProofJob>>(std::span<const uint8_t>, const std::string& what).
template <auto Parse>
struct ProofTypeEntries {
  static zkp_status parse(const uint8_t* request, uint64_t bytes, const char* what, zkp_job** out,
                          zkp_error err) {
    return sdk::guard(err, [&]() -> Status {
      if (out == nullptr || (request == nullptr && bytes != 0)) {
        return invalid_argument("parse: null request or output pointer");
      }
      auto job = Parse(std::span<const uint8_t>(request, bytes), what ? what : "request");
      if (!job.ok()) return job.status();
      *out = new zkp_job{std::move(job).value()};
      return ok_status();
    });
  }

  static void destroy_job(zkp_job* job) { delete job; }

  static zkp_status info(const zkp_job* job, zkp_job_info* out, zkp_error err) {
    return sdk::guard(err, [&]() -> Status {
      if (job == nullptr || out == nullptr) return invalid_argument("info: null pointer");
      if (out->struct_size < sizeof(zkp_job_info)) {
        return invalid_argument("info: zkp_job_info.struct_size is too small");
      }
      const CircuitCounts c = job->job->counts();
      const std::string id = job->job->circuit_id();
      if (Status bad = check_circuit_id(id, "info: the job's circuit id"); !bad.ok()) {
        return internal_error(bad.message());  // the plugin's bug, not the request's
      }
      out->partitions = job->job->partitions();
      out->num_inputs = c.inputs;
      out->num_aux = c.aux;
      out->num_constraints = c.constraints;
      std::memset(out->circuit_id, 0, sizeof out->circuit_id);
      std::memcpy(out->circuit_id, id.data(), id.size());
      return ok_status();
    });
  }

  static zkp_status synthesize(const zkp_job* job, uint32_t partition, zkp_fr* inputs,
                               uint64_t num_inputs, zkp_fr* aux, uint64_t num_aux, zkp_error err) {
    return sdk::guard(err, [&]() -> Status {
      if (job == nullptr || inputs == nullptr || aux == nullptr) {
        return invalid_argument("synthesize: null pointer");
      }
      ZKP_RETURN_IF_ERROR(check_partition(*job, partition));
      const CircuitCounts c = job->job->counts();
      if (num_inputs != c.inputs || num_aux != c.aux) {
        return invalid_argument("synthesize: buffers of " + std::to_string(num_inputs) +
                                " inputs and " + std::to_string(num_aux) +
                                " aux; the circuit has " + std::to_string(c.inputs) + " and " +
                                std::to_string(c.aux));
      }
      auto cs = ConstraintSystem::witness({std::span<Fr>(reinterpret_cast<Fr*>(inputs), num_inputs),
                                           std::span<Fr>(reinterpret_cast<Fr*>(aux), num_aux)});
      job->job->synthesize(cs, partition);
      ZKP_RETURN_IF_ERROR(cs.finish());
      if (cs.num_inputs() != c.inputs || cs.num_aux() != c.aux) {
        return internal_error("synthesize: the circuit allocated " +
                              std::to_string(cs.num_inputs()) + " inputs and " +
                              std::to_string(cs.num_aux()) + " aux, not the counted sizes");
      }
      return ok_status();
    });
  }

  static zkp_status public_inputs(const zkp_job* job, uint32_t partition, zkp_fr* out,
                                  uint64_t count, zkp_error err) {
    return sdk::guard(err, [&]() -> Status {
      if (job == nullptr || out == nullptr) return invalid_argument("public_inputs: null pointer");
      ZKP_RETURN_IF_ERROR(check_partition(*job, partition));
      std::vector<Fr> x = job->job->public_inputs(partition);
      if (count != x.size()) {
        return invalid_argument("public_inputs: room for " + std::to_string(count) +
                                " elements; the partition has " + std::to_string(x.size()));
      }
      std::memcpy(static_cast<void*>(out), x.data(), x.size() * sizeof(Fr));
      return ok_status();
    });
  }

  static zkp_status record(const zkp_job* job, zkp_r1cs** out, zkp_r1cs_view* view, zkp_error err) {
    return sdk::guard(err, [&]() -> Status {
      if (job == nullptr || out == nullptr || view == nullptr) {
        return invalid_argument("record: null pointer");
      }
      if (view->struct_size < sizeof(zkp_r1cs_view)) {
        return invalid_argument("record: zkp_r1cs_view.struct_size is too small");
      }
      auto cs = ConstraintSystem::recorder();
      job->job->synthesize_blank(cs);
      ZKP_RETURN_IF_ERROR(cs.finish());
      auto holder = std::make_unique<zkp_r1cs>(zkp_r1cs{cs.take_r1cs()});
      const groth16::R1cs& r = holder->r1cs;
      view->num_inputs = r.num_inputs;
      view->num_aux = r.num_aux;
      view->num_constraints = r.num_constraints();
      auto fill = [](zkp_sparse_matrix& m, const groth16::SparseMatrix& s) {
        m.row_begin = s.row_begin.data();
        m.column = s.column.data();
        m.value = reinterpret_cast<const zkp_fr*>(s.value.data());
        m.terms = s.terms();
      };
      fill(view->a, r.a);
      fill(view->b, r.b);
      fill(view->c, r.c);
      *out = holder.release();
      return ok_status();
    });
  }

  static void destroy_r1cs(zkp_r1cs* r1cs) { delete r1cs; }

  static zkp_status partition_index(const zkp_job* job, uint32_t partition, uint32_t* index,
                                    zkp_error err) {
    return sdk::guard(err, [&]() -> Status {
      if (job == nullptr || index == nullptr) {
        return invalid_argument("partition_index: null pointer");
      }
      ZKP_RETURN_IF_ERROR(check_partition(*job, partition));
      *index = job->job->partition_index(partition);
      return ok_status();
    });
  }

  static Status check_partition(const zkp_job& job, uint32_t partition) {
    if (partition >= job.job->partitions()) {
      return invalid_argument("partition " + std::to_string(partition) +
                              " is out of range: the request has " +
                              std::to_string(job.job->partitions()));
    }
    return ok_status();
  }
};

// A preset's name is [A-Za-z0-9._-]+ (zkp_preset.name).
constexpr bool valid_preset_name(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

// The preset called `name` in `presets`, or NOT_FOUND listing the names.
inline Result<const zkp_preset*> find_preset(std::span<const zkp_preset> presets,
                                             std::string_view name) {
  std::string names;
  for (const zkp_preset& p : presets) {
    if (name == p.name) return &p;
    names += (names.empty() ? "" : ", ") + std::string(p.name);
  }
  return not_found("unknown preset '" + std::string(name) + "' (presets: " + names + ")");
}

// Every preset has a valid name (distinct), a description and partitions >= 1: a self-test step.
inline Status check_presets(std::span<const zkp_preset> presets) {
  for (size_t i = 0; i < presets.size(); ++i) {
    const zkp_preset& p = presets[i];
    const std::string at = "preset " + std::to_string(i);
    if (p.name == nullptr || !valid_preset_name(p.name)) {
      return internal_error(at + ": the name is not [A-Za-z0-9._-]+");
    }
    if (p.description == nullptr || p.partitions == 0 || p.reserved != 0) {
      return internal_error(at + " '" + p.name +
                            "': no description, no partitions or reserved "
                            "not zero");
    }
    for (size_t j = 0; j < i; ++j) {
      if (std::string_view(presets[j].name) == p.name) {
        return internal_error(at + ": the name '" + p.name + "' is used twice");
      }
    }
  }
  return ok_status();
}

// A self-test step for a proof type with presets: the sample request of `preset` (from `seed`)
// parses, holds the preset's partitions, and partition 0 synthesizes as self_test_job checks.
// Parse and Sample are the plugin's (see SampleRequestEntry).
template <auto Parse, auto Sample>
Status self_test_sample(std::span<const zkp_preset> presets, std::string_view preset,
                        uint64_t seed) {
  ZKP_RETURN_IF_ERROR(check_presets(presets));
  ZKP_ASSIGN_OR_RETURN(const zkp_preset* p, find_preset(presets, preset));
  ZKP_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, Sample(*p, seed));
  const std::string what = "the sample request of preset '" + std::string(p->name) + "'";
  ZKP_ASSIGN_OR_RETURN(std::unique_ptr<ProofJob> job, Parse(std::span<const uint8_t>(bytes), what));
  if (job->partitions() != p->partitions) {
    return internal_error("self-test: " + what + " has " + std::to_string(job->partitions()) +
                          " partitions; the preset says " + std::to_string(p->partitions));
  }
  return self_test_job(*job);
}

// zkp_proof_type.sample_request over a plugin's preset table and
//   Sample: Result<std::vector<uint8_t>>(const zkp_preset& preset, uint64_t seed)
// which makes the complete request of a known preset (same preset and seed: same bytes). The
// bytes go to the engine's writer in pieces of at most kSampleChunkBytes; a writer that says
// stop makes the call ABORTED.
inline constexpr uint64_t kSampleChunkBytes = uint64_t{1} << 24;

template <auto Sample, const auto& Presets>
struct SampleRequestEntry {
  static zkp_status sample_request(const char* preset, uint64_t seed, zkp_write_fn write, void* ctx,
                                   zkp_error err) {
    return sdk::guard(err, [&]() -> Status {
      if (preset == nullptr || write == nullptr) {
        return invalid_argument("sample_request: null preset or writer");
      }
      ZKP_ASSIGN_OR_RETURN(const zkp_preset* p,
                           find_preset(std::span<const zkp_preset>(Presets), preset));
      ZKP_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, Sample(*p, seed));
      for (uint64_t at = 0; at < bytes.size(); at += kSampleChunkBytes) {
        const uint64_t n = std::min<uint64_t>(kSampleChunkBytes, bytes.size() - at);
        if (write(ctx, bytes.data() + at, n) != 0) {
          return aborted("sample_request: the writer stopped at byte " + std::to_string(at) +
                         " of " + std::to_string(bytes.size()));
        }
      }
      return ok_status();
    });
  }
};

// What a preset's circuit is without a request (ABI 1.7, zkp_proof_type.preset_circuit): what
// info() says of a request of the preset, and the terms of A, B and C as the circuit writes
// them.
struct PresetCircuit {
  std::string circuit_id;
  uint32_t partitions = 0;
  CircuitCounts counts;
  uint64_t terms[3] = {0, 0, 0};
};

// A blank synthesis `synthesize(ConstraintSystem&)` of the circuit, counted with its terms
// (ConstraintSystem::shape_counter: every value zero, nothing kept). `count` false (ABI 1.8
// ZKP_PRESET_CIRCUIT_ID_ONLY): the id and partitions only, nothing synthesized.
template <typename Synthesize>
PresetCircuit count_preset_circuit(std::string circuit_id, uint32_t partitions, bool count,
                                   Synthesize&& synthesize) {
  PresetCircuit p;
  p.circuit_id = std::move(circuit_id);
  p.partitions = partitions;
  if (!count) return p;
  ConstraintSystem cs = ConstraintSystem::shape_counter();
  synthesize(cs);
  p.counts = {cs.num_inputs(), cs.num_aux(), cs.num_constraints()};
  for (unsigned m = 0; m < 3; ++m) p.terms[m] = cs.num_terms(m);
  return p;
}

// zkp_proof_type.preset_circuit over
//   Circuit: Result<PresetCircuit>(const zkp_preset& preset, bool count)
// for the presets of the plugin's table; `count` is false when the caller asks for the id only
// (ZKP_PRESET_CIRCUIT_ID_ONLY).
template <auto Circuit, const auto& Presets>
struct PresetCircuitEntry {
  static zkp_status preset_circuit(const char* preset, zkp_preset_circuit* out, zkp_error err) {
    return sdk::guard(err, [&]() -> Status {
      if (preset == nullptr || out == nullptr) {
        return invalid_argument("preset_circuit: null preset or output");
      }
      if (out->struct_size < sizeof(zkp_preset_circuit) ||
          out->info.struct_size < sizeof(zkp_job_info)) {
        return invalid_argument("preset_circuit: zkp_preset_circuit.struct_size is too small");
      }
      ZKP_ASSIGN_OR_RETURN(const zkp_preset* p,
                           find_preset(std::span<const zkp_preset>(Presets), preset));
      const bool count = (out->flags & ZKP_PRESET_CIRCUIT_ID_ONLY) == 0;
      ZKP_ASSIGN_OR_RETURN(const PresetCircuit c, Circuit(*p, count));
      if (Status bad = check_circuit_id(c.circuit_id, "preset_circuit: the circuit id");
          !bad.ok()) {
        return internal_error(bad.message());
      }
      out->info.partitions = c.partitions;
      out->info.num_inputs = c.counts.inputs;
      out->info.num_aux = c.counts.aux;
      out->info.num_constraints = c.counts.constraints;
      std::memset(out->info.circuit_id, 0, sizeof out->info.circuit_id);
      std::memcpy(out->info.circuit_id, c.circuit_id.data(), c.circuit_id.size());
      out->terms_a = c.terms[0];
      out->terms_b = c.terms[1];
      out->terms_c = c.terms[2];
      return ok_status();
    });
  }
};

// zkp_proof_type.command over Command: int(std::span<const std::string> args), args[0] being the
// type's name; an exception becomes a message on stderr and exit code 1.
template <auto Command>
struct CommandEntry {
  static int32_t command(int32_t argc, const char* const* argv) {
    try {
      if (argc < 1 || argv == nullptr) {
        std::fputs("command: no arguments (argv[0] is the proof type's name)\n", stderr);
        return 2;
      }
      std::vector<std::string> args;
      for (int32_t i = 0; i < argc; ++i) args.emplace_back(argv[i] == nullptr ? "" : argv[i]);
      return Command(std::span<const std::string>(args));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s: unexpected exception: %s\n", argv[0], e.what());
    } catch (...) {
      std::fprintf(stderr, "%s: unexpected exception\n", argv[0]);
    }
    return 1;
  }
};

// The scheduling defaults of a proof type's requests (ABI 1.3): ZKP_PRIORITY_* and a deadline in
// ms after submission (0: none).
struct Schedule {
  uint32_t priority = ZKP_PRIORITY_NONE;
  uint64_t deadline_ms = 0;
};

}  // namespace zkpipe::plugins

// Exports a proof-type plugin: its init (keeps the host table), its self-test (RunSelfTest:
// Status()) and the ABI entry points over Parse. Use once, at namespace scope, in one .cpp.
// Without presets (zkp_proof_type.preset_count 0, no sample_request):
#define ZKP_EXPORT_PROOF_TYPE(kName, kVersion, Parse, RunSelfTest)                       \
  ZKP_EXPORT_PROOF_TYPE_TABLE(kName, kVersion, Parse, RunSelfTest, nullptr, 0u, nullptr, \
                              (::zkpipe::plugins::Schedule{}), nullptr, nullptr)

// With presets: kPresets is a constant zkp_preset array at namespace scope (constant-initialized:
// nothing runs in a static initializer) and Sample makes a preset's request (SampleRequestEntry).
#define ZKP_EXPORT_PROOF_TYPE_WITH_PRESETS(kName, kVersion, Parse, RunSelfTest, kPresets, Sample) \
  ZKP_EXPORT_PROOF_TYPE_TABLE(                                                                    \
      kName, kVersion, Parse, RunSelfTest, kPresets, static_cast<uint32_t>(std::size(kPresets)),  \
      (::zkpipe::plugins::SampleRequestEntry<Sample, kPresets>::sample_request),                  \
      (::zkpipe::plugins::Schedule{}), nullptr, nullptr)

// With presets, scheduling defaults (kSchedule: a constexpr Schedule) and the type's own commands
// (Command: see CommandEntry; `zkpipe-tool proof-type NAME ARGS...`).
#define ZKP_EXPORT_PROOF_TYPE_SCHEDULED(kName, kVersion, Parse, RunSelfTest, kPresets, Sample,   \
                                        kSchedule, Command)                                      \
  ZKP_EXPORT_PROOF_TYPE_TABLE(                                                                   \
      kName, kVersion, Parse, RunSelfTest, kPresets, static_cast<uint32_t>(std::size(kPresets)), \
      (::zkpipe::plugins::SampleRequestEntry<Sample, kPresets>::sample_request), kSchedule,      \
      (::zkpipe::plugins::CommandEntry<Command>::command), nullptr)

// The same, and each preset's circuit without a request (Circuit: see PresetCircuitEntry; ABI
// 1.7), so `zkpipe plan` predicts presets no sample can be made of here.
#define ZKP_EXPORT_PROOF_TYPE_PLANNED(kName, kVersion, Parse, RunSelfTest, kPresets, Sample,     \
                                      kSchedule, Command, Circuit)                               \
  ZKP_EXPORT_PROOF_TYPE_TABLE(                                                                   \
      kName, kVersion, Parse, RunSelfTest, kPresets, static_cast<uint32_t>(std::size(kPresets)), \
      (::zkpipe::plugins::SampleRequestEntry<Sample, kPresets>::sample_request), kSchedule,      \
      (::zkpipe::plugins::CommandEntry<Command>::command),                                       \
      (::zkpipe::plugins::PresetCircuitEntry<Circuit, kPresets>::preset_circuit))

#define ZKP_EXPORT_PROOF_TYPE_TABLE(kName, kVersion, Parse, RunSelfTest, kPresetTable,           \
                                    kPresetCount, kSampleRequest, kSchedule, kCommand,           \
                                    kPresetCircuit)                                              \
  namespace {                                                                                    \
  zkp_status zkp_proof_type_init(const zkp_host* host, zkp_error err) {                          \
    return ::zkpipe::sdk::guard(err, [&] { ::zkpipe::sdk::set_host(host); });                    \
  }                                                                                              \
  zkp_status zkp_proof_type_self_test(zkp_error err) {                                           \
    return ::zkpipe::sdk::guard(err, [] { return RunSelfTest(); });                              \
  }                                                                                              \
  using ZkpProofTypeEntries = ::zkpipe::plugins::ProofTypeEntries<Parse>;                        \
  }                                                                                              \
  ZKP_EXPORT_PLUGIN(zkp_proof_type) = {                                                          \
      ::zkpipe::sdk::header<zkp_proof_type>(ZKP_KIND_PROOF_TYPE, kName, kVersion, ZKP_BUILD_TAG, \
                                            zkp_proof_type_init, zkp_proof_type_self_test),      \
      ZkpProofTypeEntries::parse,                                                                \
      ZkpProofTypeEntries::destroy_job,                                                          \
      ZkpProofTypeEntries::info,                                                                 \
      ZkpProofTypeEntries::synthesize,                                                           \
      ZkpProofTypeEntries::public_inputs,                                                        \
      ZkpProofTypeEntries::record,                                                               \
      ZkpProofTypeEntries::destroy_r1cs,                                                         \
      ZkpProofTypeEntries::partition_index,                                                      \
      kPresetTable,                                                                              \
      kPresetCount,                                                                              \
      0u,                                                                                        \
      kSampleRequest,                                                                            \
      (kSchedule).priority,                                                                      \
      0u,                                                                                        \
      (kSchedule).deadline_ms,                                                                   \
      kCommand,                                                                                  \
      kPresetCircuit,                                                                            \
  }
