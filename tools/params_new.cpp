// `zkpipe-tool params new`: records an example circuit, runs the seeded development setup (NOT a
// ceremony: anyone with the seed can forge proofs; the command says so and the file records it)
// with a progress bar on a terminal, and writes the params file and the R1CS cache beside it
// (FILE.csr). Thread-safety: main thread only (the setup spreads its work over threads).
#include <unistd.h>

#include <bit>
#include <cstdio>
#include <memory>
#include <string>

#include <fmt/core.h>

#include "commands.h"
#include "zkpipe/groth16/example_circuits.h"
#include "zkpipe/groth16/params_file.h"
#include "zkpipe/groth16/setup.h"
#include "zkpipe/sdk/clock.h"
#include "zkpipe/sdk/output_file.h"

namespace zkpipe::tool {
namespace {

struct NewOptions {
  std::string circuit = "synthetic";
  uint64_t size = 1024;
  uint64_t seed = 1;
  unsigned threads = 0;
  std::string out;
};

// "\rsetup [##########----------]  50%  131072 / 262144 points  3.1 s" on a terminal.
void draw_bar(uint64_t done, uint64_t total, double elapsed) {
  constexpr int kWidth = 30;
  const int filled = total == 0 ? kWidth : static_cast<int>(kWidth * done / total);
  std::string bar(static_cast<size_t>(filled), '#');
  bar.append(static_cast<size_t>(kWidth - filled), '-');
  fmt::print(stderr, "\rsetup [{}] {:3}%  {} / {} points  {:.1f} s", bar,
             total == 0 ? 100 : 100 * done / total, done, total, elapsed);
  std::fflush(stderr);
}

int run_new(const NewOptions& o) {
  using namespace zkpipe::groth16;
  fmt::print("params new: {}\n", kNotACeremony);
  auto fail = [](const char* step, const Status& s) {
    fmt::print(stderr, "params new: {}: {}\n", step, s.to_string());
    return s.code() == Code::kInvalidArgument ? 2 : 1;
  };
  const int64_t start = now_ns();
  auto cs = ConstraintSystem::recorder();
  if (auto s = synthesize_example({o.circuit, o.size, o.seed}, cs); !s.ok()) {
    return fail("circuit", s);
  }
  const R1cs r1cs = cs.take_r1cs();
  fmt::print("params new: circuit {} ({} constraints, {} public inputs, {} aux), domain 2^{}\n",
             o.circuit, r1cs.num_constraints(), r1cs.num_inputs - 1, r1cs.num_aux,
             std::countr_zero(r1cs.domain_size()));
  for (const std::string& out : {o.out, o.out + ".csr"}) {
    if (auto s = check_output_path(out, "--out"); !s.ok()) return fail("write", s);
  }
  SetupOptions so;
  so.threads = o.threads;
  const bool tty = isatty(STDERR_FILENO) == 1;
  const int64_t setup_start = now_ns();
  if (tty) {
    so.progress = [&](uint64_t done, uint64_t total) {
      draw_bar(done, total, seconds_since(setup_start));
    };
  }
  auto pk = setup(r1cs, ToxicWaste::from_seed(o.seed), so);
  if (tty) fmt::print(stderr, "\n");
  if (!pk.ok()) return fail("setup", pk.status());
  const double setup_s = seconds_since(setup_start);
  if (auto s = write_params(o.out, *pk); !s.ok()) return fail("write", s);
  const std::string csr = o.out + ".csr";
  if (auto s = write_r1cs_cache(csr, r1cs); !s.ok()) return fail("write", s);
  fmt::print("params new: wrote {} and {} (setup {:.2f} s, total {:.2f} s)\n", o.out, csr, setup_s,
             seconds_since(start));
  return 0;
}

}  // namespace

void add_params_new(CLI::App& params, int* exit_code) {
  auto o = std::make_shared<NewOptions>();
  CLI::App* cmd = params.add_subcommand(
      "new", "Seeded development setup of an example circuit (NOT a ceremony): FILE + FILE.csr");
  cmd->add_option("--circuit", o->circuit, "cubic, mimc or synthetic")
      ->check(CLI::IsMember({"cubic", "mimc", "synthetic"}));
  cmd->add_option("--size", o->size, "mimc rounds or synthetic constraints");
  cmd->add_option("--seed", o->seed, "seed of the toxic waste and of the circuit's values");
  cmd->add_option("--threads", o->threads, "setup threads (0 = all)");
  cmd->add_option("--out", o->out, "params file to write")->required();
  cmd->callback([o, exit_code] { *exit_code = run_new(*o); });
}

}  // namespace zkpipe::tool
