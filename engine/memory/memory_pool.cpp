// The engine side of a memory backend plugin: MemoryPool wraps the plugin's C table, Buffer
// returns itself to the pool, open_memory_backend applies the config's fallback (logged).
// Thread-safety: see memory.h.
#include <vector>

#include <spdlog/spdlog.h>

#include "zkpipe/memory.h"
#include "zkpipe/sdk/units.h"

namespace zkpipe {
namespace {

struct ErrorBuffer {
  char text[ZKP_ERROR_CAPACITY] = {0};
  zkp_error abi() { return zkp_error{text, sizeof text}; }
};

}  // namespace

Buffer::Buffer(Buffer&& other) noexcept : pool_(other.pool_), raw_(other.raw_) {
  other.pool_ = nullptr;
  other.raw_ = {};
}

Buffer& Buffer::operator=(Buffer&& other) noexcept {
  if (this != &other) {
    reset();
    pool_ = other.pool_;
    raw_ = other.raw_;
    other.pool_ = nullptr;
    other.raw_ = {};
  }
  return *this;
}

void Buffer::reset() {
  if (pool_ != nullptr && raw_.host_ptr != nullptr) {
    Status s = pool_->release(raw_);
    if (!s.ok())
      spdlog::error("releasing a {} buffer failed: {}", pool_->backend_name(), s.to_string());
  }
  pool_ = nullptr;
  raw_ = {};
}

MemoryPool::~MemoryPool() {
  if (pool_ != nullptr) table()->destroy(pool_);
}

Result<std::unique_ptr<MemoryPool>> MemoryPool::create(const LoadedPlugin& plugin,
                                                       const MemoryConfig& config) {
  if (plugin.header->kind != ZKP_KIND_MEMORY) {
    return invalid_argument("plugin '" + plugin.manifest.name + "' is not a memory backend");
  }
  if (!plugin.available()) {
    return unavailable("memory backend '" + plugin.manifest.name +
                       "': " + plugin.init_status.message());
  }
  std::vector<uint64_t> prealloc_bytes;
  std::vector<uint32_t> prealloc_count;
  for (const auto& e : config.preallocate) {
    prealloc_bytes.push_back(e.bytes);
    prealloc_count.push_back(e.count);
  }
  zkp_memory_options opts{};
  opts.struct_size = sizeof opts;
  opts.on_cap = config.on_cap == OnCap::kWait ? ZKP_ON_CAP_WAIT : ZKP_ON_CAP_FAIL;
  opts.cap_bytes = resolve_cap_bytes(config);
  opts.wait_timeout_ms = config.wait_timeout_ms;
  opts.huge_pages = config.huge_pages ? 1u : 0u;
  opts.reuse = config.reuse ? 1u : 0u;
  opts.prealloc_bytes = prealloc_bytes.data();
  opts.prealloc_count = prealloc_count.data();
  opts.prealloc_entries = static_cast<uint32_t>(prealloc_bytes.size());

  const auto* t = plugin.table<zkp_memory_backend>();
  zkp_memory_pool* raw = nullptr;
  ErrorBuffer err;
  zkp_status rc = t->create(&opts, &raw, err.abi());
  if (rc != ZKP_OK) {
    return status_from_plugin(
        rc,
        "memory backend '" + plugin.manifest.name + "' (cap " + format_bytes(opts.cap_bytes) + ")",
        err.text);
  }
  if (raw == nullptr)
    return internal_error("memory backend '" + plugin.manifest.name + "' returned no pool");
  return std::unique_ptr<MemoryPool>(new MemoryPool(&plugin, raw, opts.cap_bytes));
}

Result<Buffer> MemoryPool::allocate(uint64_t bytes) {
  zkp_buffer raw{};
  ErrorBuffer err;
  zkp_status rc = table()->allocate(pool_, bytes, &raw, err.abi());
  if (rc != ZKP_OK) {
    return status_from_plugin(rc, backend_name() + ": allocating " + format_bytes(bytes), err.text);
  }
  if (raw.host_ptr == nullptr || raw.bytes < bytes) {
    return internal_error(backend_name() + ": allocate returned a null or short buffer");
  }
  return Buffer(this, raw);
}

Status MemoryPool::release(const zkp_buffer& raw) {
  ErrorBuffer err;
  zkp_status rc = table()->release(pool_, &raw, err.abi());
  return status_from_plugin(rc, backend_name() + ": release", err.text);
}

Result<zkp_memory_stats> MemoryPool::stats() const {
  zkp_memory_stats s{};
  s.struct_size = sizeof s;
  ErrorBuffer err;
  zkp_status rc = table()->stats(pool_, &s, err.abi());
  if (rc != ZKP_OK) return status_from_plugin(rc, backend_name() + ": stats", err.text);
  return s;
}

Result<std::unique_ptr<MemoryPool>> open_memory_backend(const Config& config,
                                                        PluginRegistry& registry) {
  const MemoryConfig& mem = config.memory;
  const std::string where = mem.backend_location.to_string() + ": memory.backend";
  auto loaded = registry.load(mem.backend, ZKP_KIND_MEMORY);
  if (!loaded.ok()) return loaded.status().with_context(where);
  const LoadedPlugin* plugin = *loaded;
  if (!plugin->available()) {
    if (mem.fallback.empty()) {
      return unavailable(where + ": memory backend '" + mem.backend +
                         "' cannot run here: " + plugin->init_status.message() +
                         " (no memory.fallback is configured, so this is an error)");
    }
    spdlog::warn(
        "memory backend '{}' cannot run here ({}); using '{}' because memory.fallback in {} says "
        "so",
        mem.backend, plugin->init_status.message(), mem.fallback, config.path);
    auto fb = registry.load(mem.fallback, ZKP_KIND_MEMORY);
    if (!fb.ok()) return fb.status().with_context(mem.location.to_string() + ": memory.fallback");
    if (!(*fb)->available()) {
      return unavailable(mem.location.to_string() + ": memory.fallback '" + mem.fallback +
                         "' cannot run here either: " + (*fb)->init_status.message());
    }
    plugin = *fb;
  }
  auto pool = MemoryPool::create(*plugin, mem);
  if (!pool.ok()) return pool.status().with_context(mem.location.to_string() + ": memory");
  return pool;
}

}  // namespace zkpipe
