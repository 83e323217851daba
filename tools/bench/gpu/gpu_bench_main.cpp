// tools/bench/gpu/gpu_bench_main.cpp: zkpipe-bench-gpu, the CUDA backend's kernels timed on one
// device: the Fr NTT (ntt_nr, the transform the prover runs) and the whole Groth16 quotient
// (7 transforms + pointwise) at 2^k, and the G1 MSM at 2^k with the bases resident. Each run
// first checks the device against the CPU at the smallest size asked (results must be equal,
// else exit 1), then times `--repeat` runs after one warm-up: medians, min and max, printed as a
// table and written as JSON (--json). Used by scripts/gpu-check. --static FILE needs no GPU: the
// static report (static_model.h); --driver prints whether this driver can run the build (the
// GPU check's first line); --jsonl writes each row as it finishes.
#include <cuda_runtime_api.h>

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <vector>

#include "device.h"
#include "device_select.h"
#include "msm.h"
#include "ntt.h"
#include "static_model.h"
#include "zkpipe/crypto/fixed_base.h"
#include "zkpipe/crypto/msm.h"
#include "zkpipe/crypto/ntt.h"
#include "zkpipe/sdk/clock.h"
#include "zkpipe/sdk/cuda_check.h"
#include "zkpipe/sdk/percentile.h"

namespace zkpipe::cuda_backend {
namespace {

using crypto::Fr;
using crypto::G1;
using crypto::G1Affine;
using nlohmann::json;

std::vector<Fr> random_scalars(size_t n, uint64_t seed) {
  std::vector<Fr> v(n);
  std::mt19937_64 rng(seed);
  // Any value below r is a valid Montgomery representation: random limbs with the top one
  // kept below r's top limb.
  for (Fr& x : v) {
    for (size_t i = 0; i < 4; ++i) x.l[i] = rng();
    x.l[3] %= Fr::kModulus[3];
  }
  return v;
}

// --jsonl: one JSON line per finished row, flushed at once, so a run cut by its time limit still
// leaves the rows it finished (scripts/gpu-check-run reads them).
std::FILE* g_rows = nullptr;
void emit_row(json& out, const char* kind, json row) {
  out[kind].push_back(row);
  if (g_rows == nullptr) return;
  row["kind"] = kind;
  std::fprintf(g_rows, "%s\n", row.dump().c_str());
  std::fflush(g_rows);
}

struct Stats {
  double median = 0, min = 0, max = 0;
};
Stats summarize(const std::vector<double>& ms) {
  const auto [lo, hi] = std::minmax_element(ms.begin(), ms.end());
  return {median(ms), *lo, *hi};
}

// Times `fn` (stream-ordered work) with events: one warm-up, then `repeat` runs.
template <typename Fn>
Result<Stats> time_events(cudaStream_t s, unsigned repeat, Fn fn) {
  cudaEvent_t a, b;
  ZKP_CUDA_OK(cudaEventCreate(&a));
  ZKP_CUDA_OK(cudaEventCreate(&b));
  std::vector<double> ms;
  Status st = ok_status();
  for (unsigned i = 0; i <= repeat && st.ok(); ++i) {
    st = ZKP_CUDA_STATUS(cudaEventRecord(a, s));
    if (st.ok()) st = fn();
    if (st.ok()) st = ZKP_CUDA_STATUS(cudaEventRecord(b, s));
    if (st.ok()) st = ZKP_CUDA_STATUS(cudaEventSynchronize(b));
    float t = 0;
    if (st.ok()) st = ZKP_CUDA_STATUS(cudaEventElapsedTime(&t, a, b));
    if (st.ok() && i > 0) ms.push_back(t);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  ZKP_RETURN_IF_ERROR(st);
  return summarize(ms);
}

Status upload(DeviceMemory& m, const void* host, uint64_t bytes, const std::string& what) {
  ZKP_ASSIGN_OR_RETURN(m, DeviceMemory::allocate(bytes, what, "cuda"));
  return ZKP_CUDA_STATUS(cudaMemcpy(m.as<void>(), host, bytes, cudaMemcpyHostToDevice));
}

Status bench_ntt(const std::vector<unsigned>& logs, unsigned repeat, cudaStream_t s, json& out) {
  const unsigned max_log = *std::max_element(logs.begin(), logs.end());
  ZKP_ASSIGN_OR_RETURN(NttTwiddles tw, NttTwiddles::create(max_log, s));
  // The check: the smallest size against the CPU.
  {
    const unsigned k = *std::min_element(logs.begin(), logs.end());
    const size_t n = size_t{1} << k;
    std::vector<Fr> x = random_scalars(n, k), want = x, got(n);
    ZKP_RETURN_IF_ERROR(crypto::ntt_nr(want.data(), n, crypto::NttDirection::kForward));
    DeviceMemory d;
    ZKP_RETURN_IF_ERROR(upload(d, x.data(), n * sizeof(Fr), "ntt check"));
    ZKP_RETURN_IF_ERROR(ntt_nr(d.as<Fr>(), nullptr, k, crypto::NttDirection::kForward, tw, s));
    ZKP_CUDA_OK(cudaMemcpyAsync(got.data(), d.as<Fr>(), n * sizeof(Fr), cudaMemcpyDeviceToHost, s));
    ZKP_CUDA_OK(cudaStreamSynchronize(s));
    if (got != want)
      return internal_error(fmt::format("NTT 2^{}: the device differs from the CPU", k));
    out["ntt_checked_log"] = k;
  }
  for (unsigned k : logs) {
    const size_t n = size_t{1} << k;
    const std::vector<Fr> x = random_scalars(3 * n, 100 + k);
    DeviceMemory d;
    ZKP_RETURN_IF_ERROR(upload(d, x.data(), 3 * n * sizeof(Fr), "ntt vectors"));
    Fr* a = d.as<Fr>();
    ZKP_ASSIGN_OR_RETURN(const Stats one, time_events(s, repeat, [&] {
                           return ntt_nr(a, nullptr, k, crypto::NttDirection::kForward, tw, s);
                         }));
    ZKP_ASSIGN_OR_RETURN(const Stats q, time_events(s, repeat, [&] {
                           return quotient(a, a + n, a + 2 * n, n, tw, s);
                         }));
    std::printf("  NTT 2^%-2u  ntt_nr %9.3f ms (min %.3f, max %.3f)   quotient %9.3f ms\n", k,
                one.median, one.min, one.max, q.median);
    emit_row(out, "ntt",
             {{"log_n", k},
              {"ntt_nr_ms", one.median},
              {"ntt_nr_min_ms", one.min},
              {"ntt_nr_max_ms", one.max},
              {"quotient_ms", q.median},
              {"repeat", repeat}});
  }
  return ok_status();
}

Status bench_msm(const std::vector<unsigned>& logs, unsigned repeat, cudaStream_t s, json& out) {
  const unsigned max_log = *std::max_element(logs.begin(), logs.end());
  const size_t max_n = size_t{1} << max_log;
  // Bases k_i G for random k_i (one fixed-base run on every CPU thread), scalars random.
  const std::vector<Fr> keys = random_scalars(max_n, 7);
  std::vector<G1Affine> bases(max_n);
  const int64_t t0 = now_ns();
  crypto::fixed_base_mul(crypto::g1_generator(), keys.data(), max_n, bases.data(), 0);
  const double gen_s = seconds_since(t0);
  std::printf("  (made 2^%u bases on the CPU in %.1f s)\n", max_log, gen_s);
  // Random scalars, and PoRep-like ones: a real porep 2KiB partition's witness shares
  // (zkpipe-bench-synthesis --scalars: 48.0% zeros, 48.1% ones, the rest random), at random places.
  std::vector<Fr> porep = random_scalars(max_n, 9);
  std::mt19937_64 rng(10);
  std::uniform_real_distribution<double> u(0, 1);
  for (Fr& x : porep) {
    const double v = u(rng);
    if (v < 0.480)
      x = Fr::zero();
    else if (v < 0.480 + 0.481)
      x = Fr::one();
  }
  DeviceMemory d_bases, d_scalars;
  ZKP_RETURN_IF_ERROR(upload(d_bases, bases.data(), max_n * sizeof(G1Affine), "msm bases"));
  MsmScratch scratch;
  for (const auto& [label, scalars] :
       {std::pair<const char*, std::vector<Fr>>{"random", random_scalars(max_n, 8)},
        std::pair<const char*, std::vector<Fr>>{"porep-like", porep}}) {
    ZKP_RETURN_IF_ERROR(upload(d_scalars, scalars.data(), max_n * sizeof(Fr), "msm scalars"));
    const unsigned min_k = *std::min_element(logs.begin(), logs.end());
    const size_t min_n = size_t{1} << min_k;
    const G1 want = crypto::msm(bases.data(), scalars.data(), min_n);
    ZKP_ASSIGN_OR_RETURN(const G1 got,
                         msm_g1(d_bases.as<G1Affine>(), d_scalars.as<Fr>(), min_n, scratch, s));
    if (!(got == want)) {
      return internal_error(
          fmt::format("MSM 2^{} ({} scalars): the device differs from the CPU", min_k, label));
    }
    out["msm_checked_log"] = min_k;
    for (unsigned k : logs) {
      const size_t n = size_t{1} << k;
      std::vector<double> ms;
      for (unsigned i = 0; i <= repeat; ++i) {
        const int64_t a = now_ns();
        ZKP_ASSIGN_OR_RETURN(const G1 r,
                             msm_g1(d_bases.as<G1Affine>(), d_scalars.as<Fr>(), n, scratch, s));
        (void)r;
        const double t = ms_since(a);
        if (i > 0) ms.push_back(t);
      }
      const Stats st = summarize(ms);
      std::printf("  G1 MSM 2^%-2u %-10s %9.2f ms (min %.2f, max %.2f), bases resident\n", k, label,
                  st.median, st.min, st.max);
      emit_row(out, "msm",
               {{"log_n", k},
                {"scalars", label},
                {"ms", st.median},
                {"min_ms", st.min},
                {"max_ms", st.max},
                {"scratch_bytes", scratch.bytes()},
                {"repeat", repeat}});
    }
  }
  return ok_status();
}

// One line: the driver's CUDA version, the runtime's, and whether the driver is new enough
// (zkpipe::check_cuda_driver). 0 when it is.
int print_driver_line() {
  const CudaInfo cuda = read_cuda_info();
  int runtime = 0;
  if (cudaRuntimeGetVersion(&runtime) != cudaSuccess) runtime = CUDART_VERSION;
  const Status st = check_cuda_driver(cuda.driver_version, runtime);
  const std::string driver =
      cuda.driver_version > 0 ? "CUDA " + cuda_version_text(cuda.driver_version) : "none";
  std::printf("driver: %s, runtime: CUDA %s: %s\n", driver.c_str(),
              cuda_version_text(runtime).c_str(),
              st.ok() ? "OK" : ("FAIL: " + st.message()).c_str());
  return st.ok() ? 0 : 1;
}

int run(int argc, char** argv) {
  CLI::App app{"zkpipe-bench-gpu: the CUDA backend's NTT and G1 MSM on one device"};
  std::vector<unsigned> ntt_logs{20, 24, 26}, msm_logs{20, 22, 24};
  unsigned repeat = 5;
  int device = 0;
  std::string json_path;
  app.add_option("--ntt", ntt_logs, "NTT sizes as log2 (empty: none)")->delimiter(',');
  app.add_option("--msm", msm_logs, "MSM sizes as log2 (empty: none)")->delimiter(',');
  app.add_option("--repeat", repeat, "timed runs per size (after one warm-up)")
      ->check(CLI::Range(1, 1000));
  app.add_option("--device", device, "CUDA device index");
  app.add_option("--json", json_path, "write the results here");
  std::string jsonl_path;
  app.add_option("--jsonl", jsonl_path, "also write one JSON line per finished row here, at once");
  bool driver_only = false;
  app.add_flag("--driver", driver_only,
               "print the driver's and the runtime's CUDA versions and whether this driver can "
               "run this build (exit 1 if not), then exit");
  std::string static_path;
  app.add_option("--static", static_path,
                 "no GPU: print the static report of static_report.py's JSON (instruction "
                 "counts, registers, spills) and the cost model's predictions, then exit");
  CLI11_PARSE(app, argc, argv);
  if (!static_path.empty()) return run_static_report(static_path);
  if (driver_only) return print_driver_line();
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // rows reach a redirected log as they finish
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> rows(nullptr, &std::fclose);
  if (!jsonl_path.empty()) {
    rows.reset(std::fopen(jsonl_path.c_str(), "w"));
    if (!rows) {
      std::fprintf(stderr, "zkpipe-bench-gpu: --jsonl %s: %s\n", jsonl_path.c_str(),
                   std::strerror(errno));
      return 1;
    }
    g_rows = rows.get();
  }
  json out;
  auto fail = [](const Status& s) {
    std::fprintf(stderr, "zkpipe-bench-gpu: %s\n", s.to_string().c_str());
    return 1;
  };
  const CudaInfo cuda = read_cuda_info();
  if (!cuda.status.ok()) return fail(cuda.status);
  if (device < 0 || static_cast<size_t>(device) >= cuda.devices.size()) {
    return fail(invalid_argument(
        fmt::format("--device {}: this machine has {} device(s)", device, cuda.devices.size())));
  }
  const CudaDevice& info = cuda.devices[device];
  std::printf("zkpipe-bench-gpu on %s\n", describe_device(info).c_str());
  out["device"] = describe_device(info);
  if (Status s = ZKP_CUDA_STATUS(cudaSetDevice(device)); !s.ok()) return fail(s);
  cudaStream_t stream;
  if (Status s = ZKP_CUDA_STATUS(cudaStreamCreate(&stream)); !s.ok()) return fail(s);
  Status st = ok_status();
  if (!ntt_logs.empty()) st = bench_ntt(ntt_logs, repeat, stream, out);
  if (st.ok() && !msm_logs.empty()) st = bench_msm(msm_logs, repeat, stream, out);
  out["ok"] = st.ok();
  if (!st.ok()) out["error"] = st.to_string();
  if (!json_path.empty()) std::ofstream(json_path) << out.dump(2) << "\n";
  return st.ok() ? 0 : fail(st);
}

}  // namespace
}  // namespace zkpipe::cuda_backend

int main(int argc, char** argv) {
  return zkpipe::cuda_backend::run(argc, argv);
}
