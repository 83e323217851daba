// tools/bench_h2d.cpp: `zkpipe-tool bench-h2d`: host-to-device bandwidth of each memory backend
// (pageable, pinned_pool, zero_copy plugins) at several sizes: cudaMemcpyAsync, a 4-stream
// chunked copy for pinned buffers, and a kernel reading mapped memory for zero-copy buffers.
// Every row is checked against a pattern on the device before its bandwidth is reported.
// Thread-safety: runs on the main thread; the host fill uses a few short-lived worker threads.
#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tools/commands.h"
#include "zkpipe/sdk/status.h"
#include "zkpipe/sdk/units.h"

#include <bit>

#include "bench_h2d_kernels.h"
#include "cuda_check.h"
#include "zkpipe/memory.h"
#include "zkpipe/plugin.h"
#include "zkpipe/sdk/percentile.h"
#include "zkpipe/system.h"

namespace zkpipe::tool {
namespace {

struct BenchOptions {
  std::vector<std::string> sizes{"64MiB", "256MiB", "1GiB", "4GiB"};
  int reps = 7;
  std::vector<std::string> backends{"pageable", "pinned_pool", "zero_copy"};
  int device = 0;
  std::vector<std::string> plugin_dirs;
  bool json = false;
};

// Sizes from "--sizes" items; each must be a positive size (units.h syntax).
Result<std::vector<uint64_t>> parse_sizes(const std::vector<std::string>& items) {
  std::vector<uint64_t> sizes;
  for (const std::string& item : items) {
    Result<uint64_t> size = parse_size(item);
    if (!size.ok()) return size.status().with_context("--sizes");
    if (*size == 0) return invalid_argument("--sizes: '" + item + "' is zero bytes");
    sizes.push_back(*size);
  }
  if (sizes.empty()) return invalid_argument("--sizes: no size given");
  return sizes;
}

// Backend names as plugins spell them ([a-z0-9_]+), duplicates dropped, order kept.
Result<std::vector<std::string>> parse_backends(const std::vector<std::string>& items) {
  std::vector<std::string> out;
  for (const std::string& name : items) {
    bool valid = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
      return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    });
    if (!valid) return invalid_argument("--backends: '" + name + "' is not a plugin name");
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  }
  if (out.empty()) return invalid_argument("--backends: no backend given");
  return out;
}

// Checks --sizes and --backends; prints the problem and returns false on bad input.
bool options_valid(const BenchOptions& opts) {
  for (const Status& s :
       {parse_sizes(opts.sizes).status(), parse_backends(opts.backends).status()}) {
    if (s.ok()) continue;
    fmt::print(stderr, "bench-h2d: {}\n", s.message());
    return false;
  }
  return true;
}

struct Row {
  std::string backend, method;
  uint64_t bytes = 0;
  int reps = 0;
  double median_gbps = 0, min_gbps = 0, max_gbps = 0;
};

// Something that was not measured: a whole backend (bytes 0), a size or one method of a size.
struct Skip {
  std::string backend, method;
  uint64_t bytes = 0;
  std::string reason;
};

struct Report {
  std::string device;  // "0 NVIDIA H200 (GPU-...), PCIe Gen5 x16"
  int reps = 0;
  std::vector<Row> rows;
  std::vector<Skip> skips;
};

// GB/s with GB = 1e9 bytes, as PCIe rates are quoted.
double gbps(uint64_t bytes, double seconds) {
  return seconds > 0 ? static_cast<double>(bytes) / seconds / 1e9 : 0.0;
}

// Median (mean of the middle two for an even count), min and max of `samples` (non-empty).
struct Summary {
  double median = 0, min = 0, max = 0;
};
Summary summarize(std::vector<double> samples) {
  Summary s;
  if (samples.empty()) return s;
  s.median = zkpipe::median(samples);
  std::sort(samples.begin(), samples.end());
  s.min = samples.front();
  s.max = samples.back();
  return s;
}

std::string skip_subject(const Skip& skip) {
  std::string subject = skip.backend;
  if (!skip.method.empty()) subject += " " + skip.method;
  if (skip.bytes != 0) subject += " " + format_bytes(skip.bytes);
  return subject;
}

std::string format_report(const Report& report) {
  std::string out = fmt::format("bench-h2d: device {}; {} timed runs per row; GB/s = 1e9 bytes/s\n",
                                report.device, report.reps);
  if (!report.rows.empty()) {
    out += fmt::format("{:<14} {:<18} {:>10} {:>9} {:>9} {:>9} {:>5}\n", "backend", "method",
                       "size", "median", "min", "max", "reps");
    for (const Row& r : report.rows)
      out += fmt::format("{:<14} {:<18} {:>10} {:>9.2f} {:>9.2f} {:>9.2f} {:>5}\n", r.backend,
                         r.method, format_bytes(r.bytes), r.median_gbps, r.min_gbps, r.max_gbps,
                         r.reps);
  }
  for (const Skip& s : report.skips)
    out += fmt::format("skipped {}: {}\n", skip_subject(s), s.reason);
  return out;
}

nlohmann::json report_json(const Report& report) {
  nlohmann::json rows = nlohmann::json::array(), skips = nlohmann::json::array();
  for (const Row& r : report.rows)
    rows.push_back({{"backend", r.backend},
                    {"method", r.method},
                    {"bytes", r.bytes},
                    {"size", format_bytes(r.bytes)},
                    {"median_gbps", r.median_gbps},
                    {"min_gbps", r.min_gbps},
                    {"max_gbps", r.max_gbps},
                    {"reps", r.reps}});
  for (const Skip& s : report.skips)
    skips.push_back(
        {{"backend", s.backend}, {"method", s.method}, {"bytes", s.bytes}, {"reason", s.reason}});
  return {{"device", report.device}, {"reps", report.reps}, {"rows", rows}, {"skipped", skips}};
}

// 0 when every requested row was measured, 1 when anything was skipped or failed.
int exit_code_of(const Report& report) {
  return report.skips.empty() && !report.rows.empty() ? 0 : 1;
}

// 64 MiB chunks over 4 streams: large enough that per-copy launch cost (~5 us) is <0.1% of a
// chunk's ~1.3 ms at 50 GB/s, small enough that a 256 MiB buffer still spreads over all
// streams, which is the pattern the compute backend uses to overlap H2D with kernels.
constexpr uint64_t kChunkBytes = uint64_t{64} << 20;
constexpr int kChunkStreams = 4;
// Pool cap: the largest size rounded up to a power of two (the coarsest size class a backend
// may use) plus 64 MiB for a backend's own bookkeeping or alignment.
constexpr uint64_t kPoolCapMargin = uint64_t{64} << 20;

enum class Method { kMemcpy, kChunked, kMappedKernel };
const char* method_name(Method m) {
  static constexpr const char* kNames[] = {"memcpy_async", "memcpy_4_streams", "mapped_kernel"};
  return kNames[static_cast<int>(m)];
}

// The streams, events and counter one device needs; created once.
struct Bench {
  int sm_count = 0;
  std::vector<CudaStream> streams;  // [0] is the timing stream
  CudaEvent start, stop;
  std::vector<CudaEvent> joins;
  DeviceBuffer mismatches;

  static Result<Bench> create(int device) {
    Bench b;
    ZKP_CUDA_OK(cudaSetDevice(device));
    ZKP_CUDA_OK(cudaDeviceGetAttribute(&b.sm_count, cudaDevAttrMultiProcessorCount, device));
    for (int i = 0; i < kChunkStreams; ++i) {
      ZKP_ASSIGN_OR_RETURN(CudaStream s, CudaStream::create());
      b.streams.push_back(std::move(s));
      ZKP_ASSIGN_OR_RETURN(CudaEvent e, CudaEvent::create());
      b.joins.push_back(std::move(e));
    }
    ZKP_ASSIGN_OR_RETURN(b.start, CudaEvent::create());
    ZKP_ASSIGN_OR_RETURN(b.stop, CudaEvent::create());
    ZKP_ASSIGN_OR_RETURN(b.mismatches, DeviceBuffer::allocate(sizeof(unsigned long long)));
    return b;
  }
};

// One transfer of `bytes` from `host` to `dev` by `method`, timed on stream 0. The device
// buffer is cleared first (untimed) so every run has to deliver the data itself.
Result<double> timed_run(Bench& b, Method method, const Buffer& host, void* dev, uint64_t bytes) {
  cudaStream_t s0 = b.streams[0].get();
  ZKP_CUDA_OK(cudaMemsetAsync(dev, 0, bytes, s0));
  ZKP_CUDA_OK(cudaEventRecord(b.start.get(), s0));
  if (method == Method::kMemcpy) {
    ZKP_CUDA_OK(cudaMemcpyAsync(dev, host.host(), bytes, cudaMemcpyHostToDevice, s0));
  } else if (method == Method::kMappedKernel) {
    ZKP_CUDA_OK(launch_mapped_copy(host.device(), dev, bytes, b.sm_count, s0));
  } else {
    for (int i = 1; i < kChunkStreams; ++i)
      ZKP_CUDA_OK(cudaStreamWaitEvent(b.streams[i].get(), b.start.get(), 0));
    for (uint64_t off = 0, k = 0; off < bytes; off += kChunkBytes, ++k) {
      uint64_t len = std::min(kChunkBytes, bytes - off);
      ZKP_CUDA_OK(cudaMemcpyAsync(static_cast<char*>(dev) + off,
                                  static_cast<const char*>(host.host()) + off, len,
                                  cudaMemcpyHostToDevice, b.streams[k % kChunkStreams].get()));
    }
    for (int i = 1; i < kChunkStreams; ++i) {
      ZKP_CUDA_OK(cudaEventRecord(b.joins[i].get(), b.streams[i].get()));
      ZKP_CUDA_OK(cudaStreamWaitEvent(s0, b.joins[i].get(), 0));
    }
  }
  ZKP_CUDA_OK(cudaEventRecord(b.stop.get(), s0));
  ZKP_CUDA_OK(cudaEventSynchronize(b.stop.get()));
  float ms = 0;
  ZKP_CUDA_OK(cudaEventElapsedTime(&ms, b.start.get(), b.stop.get()));
  return static_cast<double>(ms) * 1e-3;
}

// A warm-up run, `reps` timed runs, then a pattern check of what the last run delivered.
Result<Row> measure(Bench& b, Method method, const Buffer& host, const DeviceBuffer& dev,
                    uint64_t bytes, uint64_t seed, int reps, const std::string& backend) {
  ZKP_RETURN_IF_ERROR(timed_run(b, method, host, dev.get(), bytes).status());
  std::vector<double> samples;
  for (int i = 0; i < reps; ++i) {
    ZKP_ASSIGN_OR_RETURN(double seconds, timed_run(b, method, host, dev.get(), bytes));
    samples.push_back(gbps(bytes, seconds));
  }
  // All on stream 0: it is non-blocking, so the legacy default stream would not wait for it.
  cudaStream_t s0 = b.streams[0].get();
  auto* counter = static_cast<unsigned long long*>(b.mismatches.get());
  ZKP_CUDA_OK(launch_verify_pattern(dev.get(), bytes, seed, counter, b.sm_count, s0));
  unsigned long long bad = 0;
  ZKP_CUDA_OK(cudaMemcpyAsync(&bad, counter, sizeof bad, cudaMemcpyDeviceToHost, s0));
  ZKP_CUDA_OK(cudaStreamSynchronize(s0));
  if (bad != 0)
    return internal_error(fmt::format(
        "verification failed: {} of {} bytes on the device differ from the host", bad, bytes));
  Summary s = summarize(std::move(samples));
  return Row{backend, method_name(method), bytes, reps, s.median, s.min, s.max};
}

// The backend's pool with a cap that fits the largest of `sizes`, or why it cannot be used.
Result<std::unique_ptr<MemoryPool>> open_bench_pool(PluginRegistry& registry,
                                                    const std::string& backend,
                                                    const std::vector<uint64_t>& sizes) {
  ZKP_ASSIGN_OR_RETURN(const LoadedPlugin* plugin, registry.load(backend, ZKP_KIND_MEMORY));
  if (!plugin->available()) return plugin->init_status;
  MemoryConfig config;
  config.backend = backend;
  config.cap_bytes = std::bit_ceil(*std::max_element(sizes.begin(), sizes.end())) + kPoolCapMargin;
  config.on_cap = OnCap::kFail;
  config.wait_timeout_ms = 0;
  config.reuse = false;  // freed buffers go back to the system: one size in memory at a time
  return MemoryPool::create(*plugin, config);
}

void bench_backend(const BenchOptions& opts, const CudaDevice& device, PluginRegistry& registry,
                   const std::string& backend, const std::vector<uint64_t>& sizes, Bench& bench,
                   Report& report) {
  auto skip = [&](std::string method, uint64_t bytes, const std::string& reason) {
    report.skips.push_back({backend, std::move(method), bytes, reason});
  };
  Result<std::unique_ptr<MemoryPool>> pool = open_bench_pool(registry, backend, sizes);
  if (!pool.ok()) return skip("", 0, pool.status().to_string());

  for (size_t si = 0; si < sizes.size(); ++si) {
    const uint64_t bytes = sizes[si];
    Result<Buffer> host = (*pool)->allocate(bytes);
    if (!host.ok()) {
      skip("", bytes, "host buffer: " + host.status().to_string());
      continue;
    }
    std::vector<Method> methods;
    if (host->device_mapped()) {
      methods = {Method::kMappedKernel};
      if (!device.can_map_host_memory || host->device() == nullptr ||
          reinterpret_cast<uintptr_t>(host->device()) % 16 != 0) {
        skip(method_name(Method::kMappedKernel), bytes,
             "the device cannot read this buffer in place (no mapping, or not 16-byte aligned)");
        continue;
      }
    } else {
      methods = {Method::kMemcpy};
      if (host->pinned()) methods.push_back(Method::kChunked);
    }
    const uint64_t seed = (uint64_t{0x5eed} << 32) ^ (si << 8) ^ report.rows.size();
    fill_pattern(host->host(), bytes, seed);
    Result<DeviceBuffer> dev = DeviceBuffer::allocate(bytes);
    if (!dev.ok()) {
      skip("", bytes, "device buffer: " + dev.status().to_string());
      continue;
    }
    for (Method m : methods) {
      Result<Row> row = measure(bench, m, *host, *dev, bytes, seed, opts.reps, backend);
      if (row.ok())
        report.rows.push_back(*row);
      else
        skip(method_name(m), bytes, row.status().to_string());
    }
  }
}

int run_bench(const BenchOptions& opts) {
  if (!options_valid(opts)) return 2;
  std::vector<uint64_t> sizes = *parse_sizes(opts.sizes);
  std::vector<std::string> backends = *parse_backends(opts.backends);
  CudaInfo cuda = read_cuda_info();
  if (!cuda.status.ok() || cuda.devices.empty()) {
    std::string why = cuda.status.ok() ? "no CUDA device" : cuda.status.message();
    fmt::print(stderr, "bench-h2d: no usable GPU: {}\n", why);
    return 1;
  }
  if (opts.device >= static_cast<int>(cuda.devices.size())) {
    fmt::print(stderr, "bench-h2d: --device {}: this machine has {} CUDA device(s)\n", opts.device,
               cuda.devices.size());
    return 2;
  }
  const CudaDevice& device = cuda.devices[opts.device];
  Result<Bench> bench = Bench::create(opts.device);
  if (!bench.ok()) {
    fmt::print(stderr, "bench-h2d: no usable GPU: {}\n", bench.status().message());
    return 1;
  }
  Report report;
  report.reps = opts.reps;
  report.device = fmt::format(
      "{} {} ({}), {}", device.index, device.name, device.uuid,
      device.pcie_gen == 0 ? "PCIe link unknown"
                           : fmt::format("PCIe Gen{} x{}", device.pcie_gen, device.pcie_width));
  Result<std::vector<std::string>> dirs = plugin_search_dirs({{"--plugin-dir", opts.plugin_dirs}});
  if (!dirs.ok()) {
    fmt::print(stderr, "bench-h2d: {}\n", dirs.status().to_string());
    return 2;
  }
  PluginRegistry registry(*dirs);
  for (const std::string& backend : backends)
    bench_backend(opts, device, registry, backend, sizes, *bench, report);
  fmt::print("{}", opts.json ? report_json(report).dump(2) + "\n" : format_report(report));
  return exit_code_of(report);
}

}  // namespace

void add_bench_h2d(CLI::App& app, int* exit_code) {
  auto opts = std::make_shared<BenchOptions>();
  CLI::App* sub = &app;
  sub->add_option("--sizes", opts->sizes, "Buffer sizes, comma-separated")
      ->delimiter(',')
      ->capture_default_str();
  sub->add_option("--reps", opts->reps, "Timed runs per row (after one warm-up)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  sub->add_option("--backends", opts->backends, "Memory backend plugins, comma-separated")
      ->delimiter(',')
      ->capture_default_str();
  sub->add_option("--device", opts->device, "CUDA device index")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  sub->add_option("--plugin-dir", opts->plugin_dirs,
                  "Plugin directory (repeatable; default: $ZKPIPE_PLUGIN_DIR or next to the tool)")
      ->check(CLI::ExistingDirectory);
  sub->add_flag("--json", opts->json, "Print one JSON object instead of a table");
  sub->callback(
      [opts, exit_code] { *exit_code = guarded("bench-h2d", [&] { return run_bench(*opts); }); });
}

}  // namespace zkpipe::tool
