// The static report and cost model (static_model.h).
#include "static_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "msm_plan.h"
#include "ntt_plan.h"
#include "zkpipe/sdk/status.h"

namespace zkpipe::cuda_backend {
namespace {

using nlohmann::json;

// One H200 SXM: 132 SMs at 1.98 GHz (boost), 4 schedulers per SM each issuing one warp
// instruction (32 threads) per clock.
constexpr double kClockHz = 1.98e9;
constexpr double kIssuePerSecond = 132 * 4 * 32 * kClockHz;  // thread instructions
// The hot loops are multiply-add chains, and the multiply-add lanes are half the issue lanes
// (64 per SM per clock on sm_80 and sm_90): half the issue rate. Memory stalls, divergence and
// occupancy are not modelled (the kernels have no spills and ample threads at these sizes).
constexpr double kIssueEfficiency = 0.5;
// One thread alone (a bucket no other warp shares the work of): its dependent multiply-adds
// retire about one every 4 clocks.
constexpr double kSerialPerSecond = 0.25 * kClockHz;
// HBM3e: 4.8 TB/s, of which streaming kernels reach about 80%.
constexpr double kMemoryPerSecond = 4.8e12 * 0.8;
// A gathered affine base (104 B) costs one 128-byte line.
constexpr double kGatherBytes = 128;
// The device memory the MSM plan may use (H200: 141 GB; some left to the context).
constexpr uint64_t kDeviceBytes = uint64_t{130} << 30;
// Storing a finished bucket (192 B: 12 16-byte stores and the address arithmetic). An estimate.
constexpr double kBucketStore = 24;
// Per NTT butterfly besides its one Fr product (b * w; the twiddle comes from the tile's row in
// shared memory) and two Fr additions: three shared-memory loads (a, b, w) and two stores of
// 32 B, the index arithmetic. An estimate.
constexpr double kButterflyOverhead = 48;
// Per twiddle slot of a pass (about one per element): the two-level table reads, the index
// arithmetic and the shared store, besides its product (ntt_tile_twiddles). An estimate.
constexpr double kTwiddleSlotOverhead = 32;

double issue_seconds(double instructions) {
  return instructions / (kIssuePerSecond * kIssueEfficiency);
}

}  // namespace

namespace {

// A kernel of `threads` threads, each a dependent chain of `chain` instructions: issue-bound when
// the device is full, else as long as one chain (a thread alone retires kSerialPerSecond).
double kernel_seconds(double threads, double chain) {
  return std::max(issue_seconds(threads * chain), chain / kSerialPerSecond);
}

}  // namespace

// The kernels of msm.cu in order (msm_digits.h documents each): the split, the ones' sum,
// then Pippenger over the rest under the backend's own plan (plan_msm_g1 for their count).
MsmPrediction predict_msm_g1(size_t n, const OpCosts& ops, const ScalarShares& shares) {
  MsmPrediction r;
  const double total = static_cast<double>(n);
  const double ones = total * shares.ones;
  const double others = std::max(0.0, total * (1 - shares.zeros - shares.ones));
  // The partition reads every scalar (32 B) and writes the ones' and the rest's indices.
  r.split_s = (total * 32 + (ones + others) * 4) / kMemoryPerSecond;
  if (ones > 0) {
    const double span = msm_span(static_cast<uint64_t>(ones));
    const double threads = std::ceil(ones / span);
    const double gathers = ones * kGatherBytes / kMemoryPerSecond;
    r.ones_s = std::max(kernel_seconds(threads, span * ops.xyzz_madd), gathers) +
               std::ceil(std::log2(std::max(threads, 1.0))) * ops.xyzz_add / kSerialPerSecond;
  }
  const MsmGpuPlan plan = plan_msm_g1(static_cast<size_t>(others), kDeviceBytes);
  r.window_bits = plan.window_bits;
  r.windows = plan.windows;
  if (plan.passes > 0) {
    const double entries = others * plan.windows;
    // Digits write 8 B per entry; each 8-bit radix pass reads and writes 8 B.
    const double sort_passes = std::ceil(plan.key_bits / 8.0);
    r.sort_s = entries * (8 + 16 * sort_passes) / kMemoryPerSecond;
    // Level 0: a span of entries per thread (a mixed addition and a gathered base each); every
    // finished run one XYZZ addition into its bucket; the pieces (2 per thread) at an XYZZ
    // addition each, level after level (each at least kMsmMinSpan long).
    const double span = msm_span(static_cast<uint64_t>(entries));
    const double threads = std::ceil(entries / span);
    const double runs = std::min(entries, static_cast<double>(plan.buckets));
    const double gathers = entries * kGatherBytes / kMemoryPerSecond;
    double levels = 0;
    for (double count = 2 * threads; threads > 1 && count > 1;) {
      const double s = msm_span(static_cast<uint64_t>(count));
      const double t = std::ceil(count / s);
      levels += kernel_seconds(t, s * ops.xyzz_add);
      if (t <= 1) break;
      count = 2 * t;
    }
    // A finished run is stored (one pass: nothing there yet) or added (later passes).
    const double run_cost = plan.passes > 1 ? ops.xyzz_add : kBucketStore;
    r.accumulate_s = std::max(kernel_seconds(threads, span * ops.xyzz_madd), gathers) +
                     issue_seconds(runs * run_cost) + levels;
    // Each window: running sums over its buckets (2 additions each) per segment thread, the
    // segment's offset (c - 1 doublings and additions), then the folds.
    const double segments = plan.segments;
    const double per_thread = 2.0 * plan.segment_len * ops.xyzz_add +
                              (plan.window_bits - 1) * (ops.xyzz_dbl + ops.xyzz_add);
    r.reduce_s = kernel_seconds(plan.windows * segments, per_thread) +
                 std::log2(segments) * kernel_seconds(plan.windows * segments / 2, ops.xyzz_add);
  }
  r.total_s = r.split_s + r.ones_s + r.sort_s + r.accumulate_s + r.reduce_s;
  return r;
}

NttPrediction predict_ntt(unsigned log_n, const OpCosts& ops) {
  NttPrediction r;
  auto plan = make_ntt_plan(log_n, NttOrder::kNaturalToReversed);
  r.passes = plan.ok() ? plan->num_passes : 0;
  const double n = std::ldexp(1.0, static_cast<int>(log_n));
  const double butterflies = log_n * n / 2;
  // Each pass fills a twiddle row per tile (2^tile_log - 1 slots, a product each at most), then
  // runs its butterflies on the rows.
  const double slots = r.passes * n;
  r.compute_s = issue_seconds(butterflies * (ops.fr_mul + 2 * ops.fr_add + kButterflyOverhead) +
                              slots * (ops.fr_mul + kTwiddleSlotOverhead));
  r.memory_s = r.passes * n * 32 * 2 / kMemoryPerSecond;  // each pass reads and writes 32 B
  r.total_s = std::max(r.compute_s, r.memory_s);
  return r;
}

namespace {

Result<double> op_count(const json& ops, const char* name) {
  if (!ops.contains(name) || !ops[name].contains("instructions") ||
      !ops[name]["instructions"].is_number()) {
    return invalid_argument(fmt::format("ops.{}.instructions is missing", name));
  }
  return ops[name]["instructions"].get<double>();
}

std::string spills(const json& f) {
  const int st = f.value("spill_stores", 0), ld = f.value("spill_loads", 0);
  return st == 0 && ld == 0 ? "none" : fmt::format("{} B / {} B", st, ld);
}

std::string registers(const json& f) {
  return f.contains("registers") && f["registers"].is_number()
             ? std::to_string(f["registers"].get<int>())
             : "?";
}

}  // namespace

int run_static_report(const std::string& path) {
  std::ifstream in(path);
  json doc = json::parse(in, nullptr, false);
  if (!in || doc.is_discarded() || !doc.is_object() || !doc.contains("ops")) {
    std::fprintf(stderr, "zkpipe-bench-gpu --static: %s is not static_report.py's JSON\n",
                 path.c_str());
    return 1;
  }
  const json& ops_json = doc["ops"];
  OpCosts ops;
  const std::pair<const char*, double*> wanted[] = {
      {"fp_mul", &ops.fp_mul},       {"fr_mul", &ops.fr_mul},     {"fr_add", &ops.fr_add},
      {"xyzz_madd", &ops.xyzz_madd}, {"xyzz_add", &ops.xyzz_add}, {"xyzz_dbl", &ops.xyzz_dbl}};
  for (const auto& [name, slot] : wanted) {
    auto v = op_count(ops_json, name);
    if (!v.ok()) {
      std::fprintf(stderr, "zkpipe-bench-gpu --static: %s: %s\n", path.c_str(),
                   v.status().message().c_str());
      return 1;
    }
    *slot = *v;
  }
  std::printf(
      "Static report of the sm_90 cubins (%s; %s): SASS instructions read off the\n"
      "cubin (an operation = its probe kernel minus the load/store skeleton, +-8)\n\n",
      path.c_str(), doc.value("nvcc", std::string("nvcc ?")).c_str());
  std::printf("%-18s %8s %10s %8s %s\n", "operation", "SASS", "registers", "stack", "spills");
  for (const auto& [name, f] : ops_json.items()) {
    std::printf("%-18s %8d %10s %8d %s\n", name.c_str(), f.value("instructions", 0),
                registers(f).c_str(), f.value("stack", 0), spills(f).c_str());
  }
  if (doc.contains("kernels") && !doc["kernels"].empty()) {
    std::printf("\n%-72s %8s %10s %8s %s\n", "kernel", "SASS", "registers", "stack", "spills");
    for (const auto& [name, f] : doc["kernels"].items()) {
      std::printf("%-72.72s %8d %10s %8d %s\n", name.c_str(), f.value("instructions", 0),
                  registers(f).c_str(), f.value("stack", 0), spills(f).c_str());
    }
  }
  // The PoRep-like shares: a real porep 2KiB partition's witness (zkpipe-bench-synthesis
  // --scalars: 48.0% zeros, 48.1% ones, 3.9% other).
  const ScalarShares random{0, 0}, porep{0.480, 0.481};
  std::printf(
      "\nPREDICTED on one H200 (cost model in tools/bench/gpu/static_model.cpp; no GPU ran)\n");
  std::printf("%-22s %3s %3s %8s %8s %8s %11s %8s %9s\n", "G1 MSM (ms)", "c", "W", "split", "ones",
              "sort", "accumulate", "reduce", "total");
  for (unsigned log_n : {20u, 22u, 24u}) {
    for (const auto& [label, shares] :
         {std::pair{"random", random}, std::pair{"PoRep-like", porep}}) {
      const MsmPrediction p = predict_msm_g1(size_t{1} << log_n, ops, shares);
      std::printf("2^%-2u %-17s %3u %3u %8.2f %8.2f %8.2f %11.2f %8.2f %9.1f\n", log_n, label,
                  p.window_bits, p.windows, 1e3 * p.split_s, 1e3 * p.ones_s, 1e3 * p.sort_s,
                  1e3 * p.accumulate_s, 1e3 * p.reduce_s, 1e3 * p.total_s);
    }
  }
  std::printf("\n%-24s %6s %12s %11s %10s\n", "NTT (Fr, ntt_nr)", "passes", "compute ms",
              "memory ms", "total ms");
  for (unsigned log_n : {20u, 24u, 26u}) {
    const NttPrediction p = predict_ntt(log_n, ops);
    std::printf("2^%-22u %6u %12.2f %11.2f %10.2f\n", log_n, p.passes, 1e3 * p.compute_s,
                1e3 * p.memory_s, 1e3 * p.total_s);
  }
  return 0;
}

}  // namespace zkpipe::cuda_backend
