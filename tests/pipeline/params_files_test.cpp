// tests/pipeline/params_files_test.cpp: the params cache's files. A `.validated` stamp trusts
// only the exact file it was written for (a byte flipped with the mtime put back is checked
// again, and the part named); params that rot after their stamp are found when proofs made with
// them fail verification: checked again, the stamp dropped, the job's error names the part.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

#include "engine_fixture.h"
#include "zkpipe/groth16/example_circuits.h"
#include "zkpipe/pipeline/params_cache.h"

namespace zkpipe::testing {
namespace {

using namespace std::chrono_literals;
using Catch::Matchers::Contains;

pipeline::JobResult run_job(const Config& config, uint64_t seed) {
  auto engine = make_engine(config);
  Result<uint64_t> id = engine->submit(mimc_request(24, 1, seed));
  REQUIRE(id.ok());
  Result<pipeline::JobResult> r = engine->wait(*id, 60s);
  REQUIRE(r.ok());
  return *r;
}

// Params made by a first job into DIR/params under `pipeline`: the config and the file's path.
struct MadeParams {
  Config config;
  std::string path;
};
MadeParams make_params(const TempDir& dir, const std::string& pipeline = "") {
  MadeParams m{test_config(pipeline, "threads: 1", dir.file("params")), ""};
  const pipeline::JobResult first = run_job(m.config, 1);
  REQUIRE(first.status.ok());
  m.path = dir.file("params/" + first.circuit_id + ".params");
  return m;
}

// Flips one byte inside the first point of the h_query section and puts the mtime back.
void corrupt_h_query(const std::string& path) {
  struct stat before {};
  REQUIRE(::stat(path.c_str(), &before) == 0);
  Result<groth16::ParamsInfo> info = groth16::params_info(path);
  REQUIRE(info.ok());
  uint64_t at = 0;
  for (const auto& s : info->sections) {
    if (s.name == "h_query") at = s.offset + 8;  // inside x of point 0
  }
  REQUIRE(at != 0);
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(static_cast<std::streamoff>(at));
  char c = 0;
  f.read(&c, 1);
  c = static_cast<char>(c ^ 0x5a);
  f.seekp(static_cast<std::streamoff>(at));
  f.write(&c, 1);
  f.close();
  const struct timespec times[2] = {before.st_atim, before.st_mtim};  // touch -r
  REQUIRE(::utimensat(AT_FDCWD, path.c_str(), times, 0) == 0);
}

}  // namespace

TEST_CASE("Params: a same-size edit with the mtime put back is checked again, naming the part",
          "[pipeline]") {
  TempDir dir("zkpipe_params_stamp");
  const auto [config, path] = make_params(dir);
  REQUIRE(std::filesystem::exists(path + ".validated"));
  for (const auto& e : std::filesystem::directory_iterator(dir.path / "params")) {
    CHECK(e.path().filename().string().find(".tmp") == std::string::npos);  // none left
  }
  corrupt_h_query(path);
  const pipeline::JobResult second = run_job(config, 2);
  INFO(second.status.to_string());
  CHECK(second.state == pipeline::JobState::kFailed);
  CHECK_THAT(second.status.message(), Contains(path) && Contains("h_query"));
}

TEST_CASE("Params: proofs failing with stamp-trusted params re-check them and name the part",
          "[pipeline]") {
  TempDir dir("zkpipe_params_stamp");
  const auto [config, path] = make_params(dir, "retries: 2");
  // Rot after the stamp was written (a disk's bit flip moves neither mtime nor ctime): the stamp
  // is rewritten for the corrupt file, so the open trusts it.
  corrupt_h_query(path);
  { std::ofstream(path + ".validated") << pipeline::params_stamp(path); }
  const pipeline::JobResult second = run_job(config, 2);
  INFO(second.status.to_string());
  CHECK(second.state == pipeline::JobState::kFailed);
  CHECK(second.status.code() == Code::kFailedPrecondition);
  CHECK_THAT(second.status.message(), Contains("params " + path + " are corrupt") &&
                                          Contains("h_query") && Contains("stamp"));
  CHECK(second.partitions[0].attempts == 1);  // not retried in vain
  CHECK_FALSE(std::filesystem::exists(path + ".validated"));
  // The next job checks the file fully and says the same at once.
  const pipeline::JobResult third = run_job(config, 3);
  CHECK(third.state == pipeline::JobState::kFailed);
  CHECK_THAT(third.status.message(), Contains(path) && Contains("h_query"));
}

TEST_CASE("Params: temporary files of a killed writer are removed by the next maker",
          "[pipeline]") {
  TempDir dir("zkpipe_params_stale");
  const auto [config, path] = make_params(dir);
  // A pid that is gone: a child that has exited and been reaped.
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  REQUIRE(child > 0);
  REQUIRE(::waitpid(child, nullptr, 0) == child);
  const std::string dead = std::to_string(child);
  const std::string live = std::to_string(::getpid());
  for (const std::string& name :
       {path + ".tmp." + dead + ".00ab", path + ".csr.tmp." + dead + ".01cd",
        path + ".validated.tmp." + dead + ".02ef", path + ".tmp." + live + ".03aa"}) {
    std::ofstream(name) << "partial";
  }
  std::filesystem::remove(path);  // the next job makes the params again, under the lock
  REQUIRE(run_job(config, 2).status.ok());
  CHECK_FALSE(std::filesystem::exists(path + ".tmp." + dead + ".00ab"));
  CHECK_FALSE(std::filesystem::exists(path + ".csr.tmp." + dead + ".01cd"));
  CHECK_FALSE(std::filesystem::exists(path + ".validated.tmp." + dead + ".02ef"));
  CHECK(std::filesystem::exists(path + ".tmp." + live + ".03aa"));  // a live writer's: kept
}

}  // namespace zkpipe::testing

namespace zkpipe::testing {
namespace {

// A params cache in a temporary directory that makes missing params (setup), with a 1 GiB budget
// and an allocator that always fails (these tests never get as far as a hot copy).
struct SetupCache {
  explicit SetupCache(const char* name)
      : dir(name),
        budget(1ull << 30),
        cache(
            config_for(dir), budget,
            [](uint64_t) -> Result<Buffer> { return internal_error("no memory here"); },
            one_thread()) {}
  static ParamsConfig config_for(const TempDir& d) {
    ParamsConfig config;
    config.dir = d.file("params");
    config.setup_when_missing = true;
    return config;
  }
  static pipeline::PipelineShape one_thread() {
    pipeline::PipelineShape shape;
    shape.threads = 1;
    return shape;
  }
  TempDir dir;
  pipeline::MemoryBudget budget;
  pipeline::ParamsCache cache;
};

// Issue 34, finding 2: an exception out of loading (here the recorder's) used to leave the entry
// loading forever, so every later acquire of the id waited for good. Now each acquire returns
// the error and the next one tries again.
TEST_CASE("Params: an exception while loading fails that acquire only; the next one tries again",
          "[pipeline]") {
  SetupCache c("zkpipe_params_throw");
  pipeline::ParamsCache& cache = c.cache;
  int calls = 0;
  const pipeline::RecordFn throwing = [&]() -> Result<groth16::R1cs> {
    ++calls;
    throw std::runtime_error("the recorder broke");
  };
  pipeline::ReserveOptions wait;
  wait.what = "test";
  for (int attempt = 0; attempt < 2; ++attempt) {
    Result<pipeline::ParamsHandle> h = cache.acquire("circuit-x", throwing, wait);
    REQUIRE_FALSE(h.ok());
    CHECK(h.status().code() == Code::kInternal);
    CHECK_THAT(h.status().message(), Contains("circuit-x") && Contains("the recorder broke"));
  }
  CHECK(calls == 2);
  CHECK(cache.stats().in_use == 0);
}

// Issue 33 #3: a daemon lived minutes past "listeners closed", finishing a params setup nobody
// would use. stop_work ends a setup in progress at its next batch (here: called from the
// recorder, right before the setup starts) and lets no later one start; nothing is written.
TEST_CASE("Params: stop_work ends a setup in progress and starts none", "[pipeline]") {
  SetupCache c("zkpipe_params_stop");
  pipeline::ParamsCache& cache = c.cache;
  int calls = 0;
  const pipeline::RecordFn record = [&]() -> Result<groth16::R1cs> {
    ++calls;
    CHECK(cache.stop_work() == std::vector<std::string>{"circuit-s"});  // it is loading
    groth16::ConstraintSystem cs = groth16::ConstraintSystem::recorder();
    ZKP_RETURN_IF_ERROR(groth16::synthesize_example({"mimc", 64, 1}, cs));
    return cs.take_r1cs();
  };
  pipeline::ReserveOptions wait;
  wait.what = "test";
  for (int attempt = 0; attempt < 2; ++attempt) {
    INFO(attempt);
    Result<pipeline::ParamsHandle> h = cache.acquire("circuit-s", record, wait);
    REQUIRE_FALSE(h.ok());
    CHECK(h.status().code() == Code::kAborted);
    CHECK_THAT(h.status().message(), Contains(attempt == 0 ? "stopped" : "engine is stopping"));
  }
  CHECK(calls == 1);  // the second acquire started nothing
  CHECK_FALSE(std::filesystem::exists(cache.params_path("circuit-s")));
  CHECK(cache.stats().in_use == 0);
}

TEST_CASE("Params: a check of every point ends ABORTED once told to stop", "[pipeline]") {
  TempDir dir("zkpipe_params_stop_check");
  const MadeParams m = make_params(dir);
  const std::atomic<bool> stop{true};
  groth16::ParamsLoadOptions o;
  o.threads = 1;
  o.stop = &stop;
  Result<groth16::ProvingKey> pk = groth16::load_params(m.path, o);
  REQUIRE_FALSE(pk.ok());
  CHECK(pk.status().code() == Code::kAborted);
  o.stop = nullptr;
  CHECK(groth16::load_params(m.path, o).ok());
}

}  // namespace
}  // namespace zkpipe::testing

namespace zkpipe::testing {
namespace {

// The engine's readiness while params.preload loads (bounded: 30 s), then what it says.
Status settled_readiness(const pipeline::Engine& engine) {
  Status s = engine.ready();
  for (int i = 0; i < 600 && s.message().find("loading") != std::string::npos; ++i) {
    std::this_thread::sleep_for(50ms);
    s = engine.ready();
  }
  return s;
}

// Issue 33 #2: params.preload makes circuits hot at start, off the workers; the engine is not
// ready until they are, and a circuit that cannot load keeps it not ready, naming the circuit.
TEST_CASE("Params: params.preload loads at start; ready only once every circuit is hot",
          "[pipeline]") {
  TempDir dir("zkpipe_params_preload");
  const MadeParams m = make_params(dir);  // mimc-test-r24, made by a first job
  Config config = m.config;
  config.params.setup_when_missing = false;
  config.params.preload = {"mimc-test-r24"};
  {
    auto engine = make_engine(config);
    const Status s = settled_readiness(*engine);
    INFO(s.to_string());
    CHECK(s.ok());
    const auto st = engine->status_json();
    CHECK(st["params"]["hot_circuits"] == nlohmann::json::array({"mimc-test-r24"}));
    CHECK(st["params"]["preload"]["pending"].empty());
  }
  config.params.preload = {"mimc-test-r24", "mimc-test-r999"};
  auto engine = make_engine(config);
  const Status s = settled_readiness(*engine);
  INFO(s.to_string());
  CHECK(s.code() == Code::kFailedPrecondition);
  CHECK_THAT(s.message(), Contains("params.preload") && Contains("mimc-test-r999") &&
                              Contains("1 of 2 circuit(s) failed"));
  CHECK(engine->status_json()["params"]["preload"]["failed"].contains("mimc-test-r999"));
  // The circuit that loaded still proves; readiness is the operator's signal, not a stop.
  Result<uint64_t> id = engine->submit(mimc_request(24, 1, 7));
  REQUIRE(id.ok());
  Result<pipeline::JobResult> r = engine->wait(*id, 60s);
  REQUIRE(r.ok());
  CHECK(r->status.ok());
}

// Issue 33 #5: under params.missing: fail, a loaded proof type with params for none of its
// presets' circuits (ABI 1.8: asked for the ids alone, nothing synthesized) keeps the engine not
// ready, naming the type and where its params go; one params file on disk is enough, and a type
// that cannot say its circuits (mimc_jobs: no preset_circuit) does not hold readiness up.
// Tagged [filecoin], not [pipeline]: the TSan build (scripts/test) runs [pipeline] with only the
// plugins the pipeline's tests load, not the Filecoin ones; nothing here is concurrent.
TEST_CASE("Params: missing: fail is not ready while a proof type has no params",
          "[params][filecoin]") {
  TempDir dir("zkpipe_params_ready");
  Config config = test_config("", "threads: 1", dir.file("params"));
  config.params.setup_when_missing = false;
  auto options = [] {
    pipeline::EngineOptions o;
    o.proof_types = {"mimc_jobs", "filecoin_winning_post"};
    return o;
  };
  {
    auto engine = make_engine(config, options());
    const Status s = engine->ready();
    INFO(s.to_string());
    CHECK(s.code() == Code::kUnavailable);
    CHECK_THAT(s.message(),
               Contains("proof type 'filecoin_winning_post' has params for none of its") &&
                   Contains(dir.file("params/filecoin-winning-post-")) &&
                   Contains("params.missing is fail") &&
                   Contains("zkpipe-tool params new --proof filecoin_winning_post"));
    // A params file for one of its circuits: ready at the next probe, no restart.
    std::filesystem::create_directories(dir.file("params"));
    std::ofstream(dir.file("params/filecoin-winning-post-2KiB.params")) << "x";
    const Status after = engine->ready();
    INFO(after.to_string());
    CHECK(after.ok());
  }
  std::filesystem::remove(dir.file("params/filecoin-winning-post-2KiB.params"));
  config.params.setup_when_missing = true;  // missing: setup makes them on demand: ready
  auto engine = make_engine(config, options());
  CHECK(engine->ready().ok());
}

}  // namespace
}  // namespace zkpipe::testing
