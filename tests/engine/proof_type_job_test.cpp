// ProofTypeJob (zkpipe/proof_type_job.h) and valid_circuit_id (zkpipe/sdk/circuit_id.h), on a
// hand-made descriptor whose calls are steered by the request bytes: a plugin's refusal keeps its
// code and message; an info that breaks the ABI (a circuit id the engine could not name a file
// after, no NUL, no partitions, no inputs) is INTERNAL naming the plugin; and every job the
// plugin made is destroyed by it exactly once, whatever failed and however the job was moved.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <vector>

#include "zkpipe/proof_type_job.h"
#include "zkpipe/sdk/circuit_id.h"

namespace {

using Catch::Matchers::Contains;
using zkpipe::Code;
using zkpipe::ProofTypeJob;
using zkpipe::ProofTypePlugin;
using zkpipe::groth16::Fr;

int g_made = 0;
int g_destroyed = 0;

// The job remembers its request: "refuse" fails parse (after making a job, which must still be
// destroyed), "id:<text>" reports <text> as the circuit id, "no-nul" fills circuit_id without a
// NUL, "parts:0" and "inputs:0" report zero counts.
struct FakeJob {
  std::string request;
};

zkp_status fake_parse(const uint8_t* request, uint64_t bytes, const char* what, zkp_job** out,
                      zkp_error err) {
  auto* job = new FakeJob{std::string(reinterpret_cast<const char*>(request), bytes)};
  ++g_made;
  *out = reinterpret_cast<zkp_job*>(job);
  if (job->request == "refuse") {
    std::snprintf(err.message, err.capacity, "%s: challenge 3 has a bad Merkle path", what);
    return ZKP_ERR_INVALID_ARGUMENT;
  }
  return ZKP_OK;
}

void fake_destroy(zkp_job* job) {
  ++g_destroyed;
  delete reinterpret_cast<FakeJob*>(job);
}

zkp_status fake_info(const zkp_job* handle, zkp_job_info* out, zkp_error) {
  const std::string& r = reinterpret_cast<const FakeJob*>(handle)->request;
  out->partitions = r == "parts:0" ? 0 : 2;
  out->num_inputs = r == "inputs:0" ? 0 : 3;
  out->num_aux = 5;
  out->num_constraints = 7;
  const std::string id = r.rfind("id:", 0) == 0 ? r.substr(3) : "fake-circuit_v1.0";
  std::memset(out->circuit_id, 0, sizeof out->circuit_id);
  std::memcpy(out->circuit_id, id.data(), std::min(id.size(), sizeof out->circuit_id - 1));
  if (r == "no-nul") std::memset(out->circuit_id, 'a', sizeof out->circuit_id);
  return ZKP_OK;
}

zkp_status fake_synthesize(const zkp_job*, uint32_t partition, zkp_fr* inputs, uint64_t, zkp_fr*,
                           uint64_t, zkp_error err) {
  if (partition == 1) {
    std::snprintf(err.message, err.capacity, "the sector file is gone");
    return ZKP_ERR_NOT_FOUND;
  }
  reinterpret_cast<Fr*>(inputs)[0] = Fr::one();
  return ZKP_OK;
}

zkp_status fake_public_inputs(const zkp_job*, uint32_t, zkp_fr* out, uint64_t count, zkp_error) {
  for (uint64_t i = 0; i < count; ++i) reinterpret_cast<Fr*>(out)[i] = Fr::from_u64(i + 10);
  return ZKP_OK;
}

zkp_proof_type fake_type() {
  zkp_proof_type t{};
  t.header.struct_size = offsetof(zkp_proof_type, partition_index);  // a 1.0 descriptor
  t.header.abi_major = 1;
  t.header.kind = ZKP_KIND_PROOF_TYPE;
  t.parse = fake_parse;
  t.destroy_job = fake_destroy;
  t.info = fake_info;
  t.synthesize = fake_synthesize;
  t.public_inputs = fake_public_inputs;
  return t;
}

zkpipe::Result<ProofTypeJob> parse(const zkp_proof_type& table, const std::string& request) {
  const ProofTypePlugin type(&table, "fake", "/plugins/fake.so");
  return ProofTypeJob::parse(
      type, {reinterpret_cast<const uint8_t*>(request.data()), request.size()}, "req-7");
}

}  // namespace

TEST_CASE("valid_circuit_id: [a-zA-Z0-9._-]+ under 96 bytes, never . or ..", "[plugin]") {
  for (const std::string& id :
       std::vector<std::string>{"porep-2KiB-v1", "a", "A.b_c-9", std::string(95, 'x')}) {
    INFO(id);
    CHECK(zkpipe::valid_circuit_id(id));
  }
  for (const std::string& id :
       std::vector<std::string>{"", ".", "..", "a/b", "../params", "a b", "a\nb", "é",
                                std::string(96, 'x'), std::string("a\0b", 3)}) {
    INFO(id);
    CHECK_FALSE(zkpipe::valid_circuit_id(id));
  }
  const zkpipe::Status s = zkpipe::check_circuit_id("../etc", "circuit_id");
  CHECK(s.code() == Code::kInvalidArgument);
  CHECK_THAT(s.message(), Contains("circuit_id: '../etc' is not a circuit id"));
}

TEST_CASE("ProofTypeJob: a parsed job's info, partitions, synthesis and public inputs",
          "[plugin]") {
  const zkp_proof_type table = fake_type();
  g_made = g_destroyed = 0;
  {
    zkpipe::Result<ProofTypeJob> job = parse(table, "good");
    REQUIRE(job.ok());
    CHECK(job->info().circuit_id == "fake-circuit_v1.0");
    CHECK(job->info().partitions == 2);
    CHECK(job->info().num_inputs == 3);
    CHECK(job->info().num_aux == 5);
    CHECK(job->info().num_constraints == 7);
    const auto indices = job->partition_indices();  // 1.0: the positions
    REQUIRE(indices.ok());
    CHECK(*indices == std::vector<uint32_t>{0, 1});

    std::vector<Fr> inputs(3), aux(5);
    CHECK(job->synthesize(0, inputs, aux, "partition 0").ok());
    CHECK(inputs[0] == Fr::one());
    const zkpipe::Status failed = job->synthesize(1, inputs, aux, "partition 1");
    CHECK(failed.code() == Code::kNotFound);
    CHECK(failed.message() == "partition 1: synthesize: the sector file is gone");
    std::vector<Fr> short_aux(4);
    const zkpipe::Status wrong = job->synthesize(0, inputs, short_aux, "partition 0");
    CHECK(wrong.code() == Code::kInternal);
    CHECK_THAT(wrong.message(), Contains("4 aux for a circuit of 3 and 5"));

    const auto x = job->public_inputs(1, "partition 1");
    REQUIRE(x.ok());
    CHECK(*x == std::vector<Fr>{Fr::from_u64(10), Fr::from_u64(11)});

    ProofTypeJob moved = std::move(*job);  // one owner: destroyed once, by the plugin
    ProofTypeJob again = std::move(moved);
    CHECK(again.info().circuit_id == "fake-circuit_v1.0");
    CHECK(g_destroyed == 0);
  }
  CHECK(g_made == 1);
  CHECK(g_destroyed == 1);
}

TEST_CASE("ProofTypeJob: refusals keep the plugin's code; a broken info is INTERNAL", "[plugin]") {
  const zkp_proof_type table = fake_type();
  g_made = g_destroyed = 0;
  const auto refused = parse(table, "refuse");
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.status().code() == Code::kInvalidArgument);
  CHECK(refused.status().message() == "req-7: challenge 3 has a bad Merkle path");

  const std::vector<std::pair<std::string, std::string>> broken = {
      {"id:../../etc/passwd", "is not a circuit id"},
      {"id:", "'' is not a circuit id"},
      {"id:a b", "'a b' is not a circuit id"},
      {"no-nul", "the circuit id is not NUL-terminated"},
      {"parts:0", "0 partitions"},
      {"inputs:0", "0 inputs"},
  };
  for (const auto& [request, says] : broken) {
    INFO(request);
    const auto r = parse(table, request);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == Code::kInternal);
    CHECK_THAT(r.status().message(), Contains("req-7: proof type 'fake'"));
    CHECK_THAT(r.status().message(), Contains(says));
  }
  CHECK(g_made == 1 + static_cast<int>(broken.size()));
  CHECK(g_destroyed == g_made);  // every job the plugin made, destroyed by the plugin
}
