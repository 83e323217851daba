// zkpipe-bench-filecoin-synthesis: synthesis of one partition of Filecoin's circuits at a sector
// size (PoRep, SnapDeals and its Poseidon variant, WindowPoSt): a counting run (every witness value
// computed, nothing stored), then a witness run into preallocated buffers (what a prover's
// synthesis makes: the assignment; a/b/c then come from the recorded R1CS), each on one thread with
// a blank witness (the same work as a real one: the circuit's shape does not depend on the values).
// Reports seconds, constraints, variables, the witness bytes, the bytes of the a/b/c evaluations a
// prover then holds (3 x constraints x 32: computed, not made here) and the peak RSS. One JSON
// object on
// stdout; progress on stderr. docs/filecoin.md gives the figures.
#include <sys/resource.h>

#include <string>
#include <vector>

#include <fmt/core.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "zkpipe/filecoin/porep_config.h"
#include "zkpipe/filecoin/post_inputs.h"
#include "zkpipe/filecoin_circuit/porep.h"
#include "zkpipe/filecoin_circuit/post.h"
#include "zkpipe/filecoin_circuit/update.h"
#include "zkpipe/sdk/clock.h"

using namespace zkpipe;
using namespace zkpipe::filecoin_circuit;

namespace {

double peak_rss_gib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss / (1024.0 * 1024.0);  // KiB
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"zkpipe-bench-filecoin-synthesis: one partition of Filecoin's circuits"};
  std::string circuit = "porep", size = "32GiB";
  bool witness = true;
  app.add_option("--circuit", circuit, "porep, snapdeals, snapdeals-poseidon or window-post")
      ->check(CLI::IsMember({"porep", "snapdeals", "snapdeals-poseidon", "window-post"}));
  app.add_option("--size", size, "2KiB, 8MiB, 512MiB, 32GiB or 64GiB");
  app.add_flag("!--no-witness", witness, "count only");
  CLI11_PARSE(app, argc, argv);
  uint64_t bytes = 0;
  for (const filecoin::SectorSizeName& s : filecoin::kSectorSizes) {
    if (size == s.name) bytes = s.bytes;
  }
  Result<filecoin::SectorShape> shape = filecoin::sector_shape(bytes);
  if (!shape.ok()) {
    fmt::print(stderr, "--size {}: {}\n", size, shape.status().to_string());
    return 2;
  }
  const TreeArities a{shape->base_arity, shape->sub_arity, shape->top_arity};
  std::function<void(groth16::ConstraintSystem&)> synth;
  if (circuit == "porep") {
    const uint32_t per = (shape->min_challenges + shape->partitions - 1) / shape->partitions;
    const PorepWitness w = blank_porep(shape->nodes, a, shape->layers, per);
    synth = [w](groth16::ConstraintSystem& cs) { synthesize_porep(cs, w); };
  } else if (circuit == "snapdeals") {
    const UpdateShape s = update_shape(shape->nodes);
    const UpdateWitness w = blank_update(s);
    synth = [s, w](groth16::ConstraintSystem& cs) { synthesize_update(cs, s, w); };
  } else if (circuit == "snapdeals-poseidon") {
    const UpdateShape s = update_poseidon_shape(shape->nodes);
    const UpdatePoseidonWitness w = blank_update_poseidon(s);
    synth = [s, w](groth16::ConstraintSystem& cs) { synthesize_update_poseidon(cs, s, w); };
  } else {
    Result<filecoin::PostConfig> c = filecoin::registered_post("StackedDrgWindow" + size + "V1_2");
    if (!c.ok()) return 2;
    const std::vector<PostSectorWitness> w =
        blank_post(c->sector_count, c->challenges, shape->nodes, a);
    synth = [w](groth16::ConstraintSystem& cs) { synthesize_fallback_post(cs, w); };
  }
  nlohmann::json out = {{"circuit", circuit}, {"size", size}, {"threads", 1}};
  fmt::print(stderr, "{} {}: counting\n", circuit, size);
  int64_t t0 = now_ns();
  groth16::ConstraintSystem counter = groth16::ConstraintSystem::counter();
  synth(counter);
  out["count_s"] = (now_ns() - t0) / 1e9;
  out["constraints"] = counter.num_constraints();
  out["inputs"] = counter.num_inputs();
  out["aux"] = counter.num_aux();
  out["abc_bytes"] = uint64_t{3} * counter.num_constraints() * sizeof(crypto::Fr);
  if (witness) {
    fmt::print(stderr, "{} {}: witness ({} variables)\n", circuit, size,
               counter.num_inputs() + uint64_t{counter.num_aux()});
    std::vector<crypto::Fr> inputs(counter.num_inputs()), aux(counter.num_aux());
    t0 = now_ns();
    groth16::ConstraintSystem w = groth16::ConstraintSystem::witness({inputs, aux});
    synth(w);
    out["witness_s"] = (now_ns() - t0) / 1e9;
    out["witness_ok"] = w.finish().ok();
    out["witness_bytes"] = (inputs.size() + aux.size()) * sizeof(crypto::Fr);
  }
  out["peak_rss_gib"] = peak_rss_gib();
  fmt::print("{}\n", out.dump(2));
  return 0;
}
