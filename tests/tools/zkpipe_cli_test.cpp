// tests/tools/zkpipe_cli_test.cpp: the `zkpipe` binary: `prove` through the pipeline with the
// test-only mimc_jobs proof type (timing table, GPU_TIMING/FIN_TIMING lines, proof, trace, status
// and metrics files), and its refusals (exit 2 naming the file). porep/snapdeals through
// `zkpipe prove` and `zkpipe bench` run in tests/interop/run.sh, where snarkjs checks the proofs.
#include <fmt/core.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <thread>
#include <vector>

#include "feature_required.h"
#include "temp_dir.h"
#include "tools/run_tool.h"
#include "zkpipe/system.h"
#include "zkpipe/version.h"

namespace {

using zkpipe::test::run_program;
using zkpipe::testing::read_text;
using zkpipe::testing::TempDir;

std::string write(const TempDir& dir, const std::string& name, const std::string& text) {
  const auto path = dir.path / name;
  std::ofstream(path) << text;
  return path.string();
}

std::string config_in(const TempDir& dir) {
  return write(dir, "c.yaml",
               fmt::format("version: 1\nplugin_dirs: [{}, {}]\nmemory: {{backend: pageable}}\n"
                           "params: {{dir: params, missing: setup}}\ncompute: {{threads: 1}}\n",
                           ZKPIPE_TEST_PLUGIN_DIR, ZKPIPE_TEST_PIPELINE_PLUGIN_DIR));
}

TEST_CASE("zkpipe --version: the release of project(VERSION) and the ABI of abi/common.h",
          "[tools]") {
  for (const auto& [program, name] :
       {std::pair{ZKPIPE_TEST_ZKPIPE, "zkpipe"}, std::pair{ZKPIPE_TEST_TOOL, "zkpipe-tool"}}) {
    const auto r = run_program(program, "--version");
    INFO(r.output);
    CHECK(r.exit_code == 0);
    CHECK(r.output == zkpipe::version_text(name) + "\n");
    CHECK(r.output.find(fmt::format("(plugin ABI {}.{})", ZKP_ABI_MAJOR, ZKP_ABI_MINOR)) !=
          std::string::npos);
  }
}

TEST_CASE("zkpipe prove: a request through the pipeline, with timings, trace, status, metrics",
          "[tool][pipeline]") {
  TempDir dir("zkpipe_cli");
  const std::string config = config_in(dir);
  const std::string input = write(dir, "r.json", R"({"rounds": 40, "partitions": 2, "seed": 3})");
  const std::string out = (dir.path / "proof.bin").string();
  const auto r = run_program(
      ZKPIPE_TEST_ZKPIPE,
      fmt::format("prove --config {} --proof mimc_jobs --input {} --out {} --trace {}/t.json "
                  "--status {}/s.json --metrics {}/m.txt",
                  config, input, out, dir.path.string(), dir.path.string(), dir.path.string()));
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  for (const char* text : {"memory: ", "GPU_TIMING job=1 partition=0", "FIN_TIMING job=1",
                           "OK, verified", "device-cpu0: busy", "proof: "}) {
    CHECK(r.output.find(text) != std::string::npos);
  }
  CHECK(read_text(out).size() == 2 * 192);
  const auto trace = nlohmann::json::parse(read_text((dir.path / "t.json").string()));
  CHECK(trace["traceEvents"].size() > 6);
  const auto status = nlohmann::json::parse(read_text((dir.path / "s.json").string()));
  CHECK(status["jobs"][0]["state"] == "done");
  CHECK(read_text((dir.path / "m.txt").string())
            .find("zkpipe_jobs_completed_total{type=\"mimc_jobs\"} 1") != std::string::npos);
  CHECK(std::filesystem::exists(dir.path / "params" / "mimc-test-r40.params.validated"));
}

// Issue 33: `zkpipe plan --json | jq` failed on log lines before the JSON. Logs go to stderr.
TEST_CASE("zkpipe plan --json: stdout is the JSON alone", "[tools]") {
  TempDir dir("zkpipe_plan_json");
  const std::string config = config_in(dir);
  for (const std::string preset : {"small", "medium"}) {
    const auto r = run_program(
        ZKPIPE_TEST_ZKPIPE,
        fmt::format("plan --config {} --proof mimc_jobs --preset {} --json --cache-dir {}", config,
                    preset, (dir.path / "cache").string()),
        /*stderr_too=*/false);
    INFO(r.output);
    CHECK(r.exit_code == 0);
    const auto j = nlohmann::json::parse(r.output, nullptr, false);
    REQUIRE_FALSE(j.is_discarded());
    CHECK(j.contains("budget_for_one_bytes"));
  }
}

// Issue 33 #10: plan says the time as well, from the times an engine measured for the circuit.
TEST_CASE("zkpipe plan: time from the circuit's measured step times", "[tools]") {
  TempDir dir("zkpipe_plan_time");
  const std::string config = config_in(dir);
  const std::string plan = fmt::format(
      "plan --config {} --proof mimc_jobs --preset small --jobs 4 --json --cache-dir {}", config,
      (dir.path / "cache").string());
  auto before = run_program(ZKPIPE_TEST_ZKPIPE, plan, /*stderr_too=*/false);
  INFO(before.output);
  REQUIRE(before.exit_code == 0);
  const auto unknown = nlohmann::json::parse(before.output).at("time");
  CHECK(unknown.at("known") == false);
  CHECK_THAT(unknown.at("why").get<std::string>(), Catch::Contains("no measured times"));
  const auto proved = run_program(
      ZKPIPE_TEST_ZKPIPE, fmt::format("prove --config {} --proof mimc_jobs --preset small --out {}",
                                      config, (dir.path / "p.bin").string()));
  INFO(proved.output);
  REQUIRE(proved.exit_code == 0);
  auto after = run_program(ZKPIPE_TEST_ZKPIPE, plan, /*stderr_too=*/false);
  INFO(after.output);
  REQUIRE(after.exit_code == 0);
  const auto j = nlohmann::json::parse(after.output);
  const auto t = j.at("time");
  REQUIRE(t.at("known") == true);
  CHECK(t.at("measured_on") == "cpu: cpu0");
  CHECK(t.at("samples") == 2);  // the preset's 2 partitions
  CHECK(t.at("partition_s").get<double>() > 0);
  // 4 jobs of 2 partitions take longer than the first job alone
  CHECK(t.at("workload_s").get<double>() > t.at("first_job_s").get<double>());
  CHECK(j.at("planned_from") == "sample");  // mimc_jobs describes no preset circuits
}

TEST_CASE("zkpipe prove: bad configs, inputs and proof types are refused with exit 2",
          "[tool][pipeline]") {
  TempDir dir("zkpipe_cli");
  const std::string config = config_in(dir);
  const std::string good = write(dir, "r.json", R"({"rounds": 8, "partitions": 1, "seed": 1})");
  const std::string bad = write(dir, "bad.json", R"({"rounds": 8})");
  const std::string bad_config = write(
      dir, "bad.yaml", "version: 1\nmemory: {backend: pageable}\npipeline: {retries: many}\n");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {fmt::format("prove --config {}/none.yaml --proof mimc_jobs --input {}", dir.path.string(),
                   good),
       "none.yaml"},
      {fmt::format("prove --config {} --proof mimc_jobs --input {}", bad_config, good),
       "bad.yaml:3:21: pipeline.retries"},
      {fmt::format("prove --config {} --proof mimc_jobs --input {}/none.json", config,
                   dir.path.string()),
       "--input"},
      {fmt::format("prove --config {} --proof mimc_jobs --input {}", config, bad), "bad.json"},
      {fmt::format("prove --config {} --proof nope --input {}", config, good), "nope"},
      {fmt::format("prove --config {} --proof mimc_jobs --input {} --priority urgent", config,
                   good),
       "--priority"},
      // Issue 34 #9: CLI11 alone read "-1" as 2^64-1 jobs.
      {fmt::format("plan --config {} --proof mimc_jobs --preset small --jobs -1", config),
       "--jobs"},
      {fmt::format("plan --config {} --proof mimc_jobs --preset small --jobs 18446744073709551615",
                   config),
       "--jobs"},
      {fmt::format("bench --config {} --proof mimc_jobs --preset small --jobs 0", config),
       "--jobs"},
  };
  for (const auto& [args, want] : cases) {
    const auto r = run_program(ZKPIPE_TEST_ZKPIPE, args);
    INFO(args << "\n" << r.output);
    CHECK(r.exit_code == 2);
    CHECK(r.output.find(want) != std::string::npos);
  }
}

TEST_CASE("zkpipe prove: compute.backend cuda proves on a GPU, else is refused naming why",
          "[tool][pipeline]") {
  TempDir dir("zkpipe_cli_cuda");
  const std::string config =
      write(dir, "gpu.yaml",
            fmt::format("version: 1\nplugin_dirs: [{}, {}]\nmemory: {{backend: pageable}}\n"
                        "params: {{dir: params, missing: setup}}\ncompute: {{backend: cuda}}\n",
                        ZKPIPE_TEST_PLUGIN_DIR, ZKPIPE_TEST_PIPELINE_PLUGIN_DIR));
  const std::string input = write(dir, "r.json", R"({"rounds": 8, "partitions": 2, "seed": 1})");
  const auto r = run_program(ZKPIPE_TEST_ZKPIPE,
                             fmt::format("prove --config {} --proof mimc_jobs --input {} --out {}",
                                         config, input, (dir.path / "p.bin").string()));
  INFO(r.output);
  const zkpipe::CudaInfo cuda = zkpipe::read_cuda_info();
  const bool plugin_built =
      std::filesystem::exists(std::string(ZKPIPE_TEST_PLUGIN_DIR) + "/cuda.so");
  REQUIRE(plugin_built == zkpipe::testing::kCudaBuilt);  // a CUDA build has made cuda.so
  if (!plugin_built) {  // then the refusal of a missing plugin is checked below
    zkpipe::testing::feature_present(false, "CUDA", "the CUDA build (nvcc; cuda.so)");
  }
  if (plugin_built && cuda.status.ok() && !cuda.devices.empty()) {
    CHECK(r.exit_code == 0);  // a GPU host: proved on cuda0 and verified
    CHECK(r.output.find("device=cuda0") != std::string::npos);
    CHECK(std::filesystem::file_size(dir.path / "p.bin") == 2 * 192);
  } else {
    // No cuda.so in this build (no nvcc, or the sanitizer build): the config names a plugin
    // that is not there, a bad input (2); built but no GPU: it cannot run here (1).
    CHECK(r.exit_code == (plugin_built ? 1 : 2));
    CHECK(r.output.find("gpu.yaml") != std::string::npos);
    CHECK(r.output.find(plugin_built ? "compute.backend cuda: the plugin cannot run here: "
                                     : "compute.backend cuda: plugin 'cuda' not found") !=
          std::string::npos);
    CHECK_FALSE(std::filesystem::exists(dir.path / "p.bin"));
  }
}

}  // namespace

namespace {

// `zkpipe prove` of a request that takes seconds, signalled `signals` times one second in.
zkpipe::test::ToolRun prove_and_signal(const TempDir& dir, int signals, const std::string& out) {
  const std::string config = config_in(dir);
#if defined(ZKPIPE_ASAN_BUILD)
  // The sanitizer build's field code runs at -O0: a fortieth of the rounds still takes seconds
  // (2000 took 90 s for the two runs).
  constexpr int kRounds = 500;
#else
  constexpr int kRounds = 20000;
#endif
  const std::string input = write(
      dir, "long.json", fmt::format(R"({{"rounds": {}, "partitions": 8, "seed": 5}})", kRounds));
  std::string kills;
  for (int k = 0; k < signals; ++k) kills += "kill -TERM $pid; sleep 0.2; ";
  // The signal goes once the request is accepted (its "parsed in" line; at most 60 s), not after
  // a fixed sleep: loading the plugins takes longer in the sanitizer build.
  const std::string log = (dir.path / "prove.log").string();
  const std::string script = fmt::format(
      "'{} prove --config {} --proof mimc_jobs --input {} --out {} >{} 2>&1 & pid=$!; "
      "i=0; while [ $i -lt 600 ] && ! grep -q \"parsed in\" {}; do sleep 0.1; i=$((i+1)); done; "
      "sleep 0.5; {}wait $pid; rc=$?; cat {}; exit $rc'",
      ZKPIPE_TEST_ZKPIPE, config, input, out, log, log, kills, log);
  return run_program("sh -c", script);
}

TEST_CASE("zkpipe prove: SIGTERM drains (the job finishes and is written), twice cancels",
          "[tool][pipeline]") {
  TempDir dir("zkpipe_cli");
  const std::string out = (dir.path / "proof.bin").string();
  const auto drained = prove_and_signal(dir, 1, out);
  INFO(drained.output);
  CHECK(drained.exit_code == 0);
  CHECK(drained.output.find("draining") != std::string::npos);
  CHECK(read_text(out).size() == 8 * 192);
  std::filesystem::remove(out);
  const auto cancelled = prove_and_signal(dir, 2, out);
  INFO(cancelled.output);
  CHECK(cancelled.exit_code == 1);
  CHECK(cancelled.output.find("ABORTED") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(out));
}

}  // namespace

TEST_CASE("zkpipe prove: outputs that are devices, directories or FIFOs are refused before proving",
          "[tool][pipeline]") {
  TempDir dir("zkpipe_cli");
  const std::string config = config_in(dir);
  const std::string input = write(dir, "r.json", R"({"rounds": 8, "partitions": 1, "seed": 1})");
  const std::string full = (dir.path / "full").string();  // our own /dev/full, never the system's
  REQUIRE(::mknod(full.c_str(), S_IFCHR | 0666, makedev(1, 7)) == 0);
  const std::string fifo = (dir.path / "fifo").string();
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const std::string base =
      fmt::format("prove --config {} --proof mimc_jobs --input {}", config, input);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--out " + full, "--out " + full + ": is a character device, not a regular file"},
      {"--trace " + fifo, "--trace " + fifo + ": is a FIFO"},
      {"--status " + dir.path.string(), "is a directory"},
      {"--metrics " + dir.path.string() + "/none/m.txt", "--metrics"},
      {"--snarkjs " + input, "--snarkjs " + input + ": is a regular file, not a directory"},
  };
  for (const auto& [args, want] : cases) {
    const auto r = run_program(ZKPIPE_TEST_ZKPIPE, base + " " + args);
    INFO(args << "\n" << r.output);
    CHECK(r.exit_code == 2);
    CHECK(r.output.find(want) != std::string::npos);
    CHECK(r.output.find("cap: RAM") == std::string::npos);  // refused before the engine
  }
  struct stat st {};
  REQUIRE(::stat(full.c_str(), &st) == 0);
  CHECK(S_ISCHR(st.st_mode));
  // A symlink is followed: the link stays, its target gets the proof.
  std::filesystem::create_symlink("proof.bin", dir.path / "link.bin");
  const auto r =
      run_program(ZKPIPE_TEST_ZKPIPE, base + " --out " + (dir.path / "link.bin").string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(std::filesystem::is_symlink(dir.path / "link.bin"));
  CHECK(read_text((dir.path / "proof.bin").string()).size() == 192);
}

TEST_CASE("zkpipe prove: 4 processes making the same params at once all succeed",
          "[tool][pipeline]") {
  for (int round = 0; round < 3; ++round) {
    TempDir dir("zkpipe_cli_race");
    const std::string config = config_in(dir);  // params: {dir: params} relative to the cwd
    const std::string input = write(dir, "r.json", R"({"rounds": 64, "partitions": 1, "seed": 5})");
    std::vector<zkpipe::test::ToolRun> runs(4);
    std::vector<std::thread> threads;
    for (size_t i = 0; i < runs.size(); ++i) {
      threads.emplace_back([&, i] {
        runs[i] = run_program("cd " + dir.path.string() + " && " + ZKPIPE_TEST_ZKPIPE,
                              fmt::format("prove --config {} --proof mimc_jobs --input {} --out "
                                          "{}/proof{}.bin",
                                          config, input, dir.path.string(), i));
      });
    }
    for (auto& t : threads) t.join();
    for (const auto& r : runs) {
      INFO("round " << round << "\n" << r.output);
      CHECK(r.exit_code == 0);
    }
    size_t made = 0;
    for (const auto& r : runs) made += r.output.find("params: making") != std::string::npos;
    CHECK(made == 1);  // one made them, the others waited and loaded them
    for (const auto& e : std::filesystem::directory_iterator(dir.path / "params")) {
      const std::string name = e.path().filename().string();
      INFO(name);
      CHECK(name.find(".tmp") == std::string::npos);  // no temporary file left behind
    }
  }
}

// [ulimit]: not in the sanitizer build (ASan's shadow memory does not start under ulimit -v).
TEST_CASE("zkpipe prove: out of memory making or mapping params is RESOURCE_EXHAUSTED, no abort",
          "[tool][pipeline][ulimit]") {
  // 2^16 MiMC rounds: the circuit records in well under these limits; its setup (about 90 MiB of
  // key plus temporaries), the params mapping or the prover's scratch does not fit in the smaller
  // ones. Whichever step runs out, the run ends with exit 1 and RESOURCE_EXHAUSTED.
  size_t exhausted = 0;
  // (zkpipe's own address space includes libpq and SQLite for `serve`'s job store, and the params
  // are made on a thread of their own, whose stack and malloc arena take about 72 MiB of address
  // space more: measured 2026-12-06, 420000 fails in the setup, 540000 at the a/b/c buffer.)
  for (const char* limit_kib : {"420000", "470000", "540000"}) {
    TempDir dir("zkpipe_cli_oom");
    const std::string config = config_in(dir);
    const std::string input =
        write(dir, "r.json", R"({"rounds": 65536, "partitions": 1, "seed": 5})");
    const auto r =
        run_program("cd " + dir.path.string() + " && ulimit -v " + limit_kib + " && " +
                        std::string(ZKPIPE_TEST_ZKPIPE),
                    fmt::format("prove --config {} --proof mimc_jobs --input {}", config, input));
    INFO("ulimit -v " << limit_kib << "\n" << r.output);
    CHECK(r.output.find("terminate") == std::string::npos);
    if (r.exit_code == 0) continue;  // it fitted
    CHECK(r.exit_code == 1);         // -1 would be a signal (std::terminate aborts)
    CHECK(r.output.find("zkpipe prove: RESOURCE_EXHAUSTED") != std::string::npos);
    ++exhausted;
    if (std::string(limit_kib) == "420000") {
      CHECK(r.output.find("the setup of circuit mimc-test-r65536 (domain 262144) needs about") !=
            std::string::npos);
    }
  }
  CHECK(exhausted >= 2);
}
