// zkpipe/sdk/sdk.h: header-only C++ SDK for plugin authors. Write C++ (exceptions, STL, Status)
// inside the plugin; wrap every entry point in zkpipe::sdk::guard so nothing but a code and a
// message crosses the C ABI; export the descriptor with ZKP_EXPORT_PLUGIN.
// Needs only this header, zkpipe/sdk/status.h and zkpipe/sdk/abi/*.h: no engine library to link.
// Thread-safety: guard and write_error are thread-safe; set_host is called once by init.
#pragma once

#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <string_view>
#include <type_traits>

#include "zkpipe/sdk/abi/common.h"
#include "zkpipe/sdk/abi/memory.h"
#include "zkpipe/sdk/abi/proof_type.h"
#include "zkpipe/sdk/status.h"

// Exports the plugin's descriptor table. Usage (at namespace scope, in one .cpp):
//   ZKP_EXPORT_PLUGIN(zkp_memory_backend) = { zkpipe::sdk::header<zkp_memory_backend>(...), ... };
#define ZKP_EXPORT_PLUGIN(Type) \
  extern "C" __attribute__((visibility("default"), used)) const Type ZKP_PLUGIN_SYMBOL

#define ZKP_SDK_STR_INNER(x) #x
#define ZKP_SDK_STR(x) ZKP_SDK_STR_INNER(x)

#if defined(__clang__)
#define ZKP_SDK_COMPILER "clang " __clang_version__
#elif defined(__GNUC__)
#define ZKP_SDK_COMPILER \
  "gcc " ZKP_SDK_STR(__GNUC__) "." ZKP_SDK_STR(__GNUC_MINOR__) "." ZKP_SDK_STR(__GNUC_PATCHLEVEL__)
#else
#define ZKP_SDK_COMPILER "unknown compiler"
#endif

// Build tag: compiler, and the CUDA runtime when the file includes cuda_runtime_api.h first.
#if defined(CUDART_VERSION)
#define ZKP_BUILD_TAG ZKP_SDK_COMPILER "; cuda " ZKP_SDK_STR(CUDART_VERSION)
#else
#define ZKP_BUILD_TAG ZKP_SDK_COMPILER "; no cuda"
#endif

namespace zkpipe::sdk {

// Copies `message` into the caller's buffer, truncating, always NUL-terminated.
inline void write_error(zkp_error err, std::string_view message) {
  if (err.message == nullptr || err.capacity == 0) return;
  size_t n = message.size() < err.capacity - 1 ? message.size() : err.capacity - 1;
  std::memcpy(err.message, message.data(), n);
  err.message[n] = '\0';
}

inline zkp_status to_abi(const Status& s, zkp_error err) {
  if (!s.ok()) write_error(err, s.message());
  return static_cast<zkp_status>(s.code());
}

// Runs `f` (returning Status or void) and turns its result or any exception into a code and
// a message. Use it as the whole body of every exported entry point.
template <typename F>
zkp_status guard(zkp_error err, F&& f) noexcept {
  try {
    if constexpr (std::is_void_v<std::invoke_result_t<F>>) {
      f();
      return ZKP_OK;
    } else {
      return to_abi(f(), err);
    }
  } catch (const std::bad_alloc&) {
    write_error(err, "out of host memory (std::bad_alloc)");
    return ZKP_ERR_RESOURCE_EXHAUSTED;
  } catch (const std::exception& e) {
    write_error(err, std::string("unexpected exception: ") + e.what());
    return ZKP_ERR_INTERNAL;
  } catch (...) {
    write_error(err, "unexpected exception of unknown type");
    return ZKP_ERR_INTERNAL;
  }
}

// The descriptor's header. `Descriptor` is the kind's full table type, so struct_size is right.
template <typename Descriptor>
constexpr zkp_plugin_header header(zkp_plugin_kind kind, const char* name, const char* version,
                                   const char* build_tag,
                                   zkp_status (*init)(const zkp_host*, zkp_error),
                                   zkp_status (*self_test)(zkp_error)) {
  return zkp_plugin_header{static_cast<uint32_t>(sizeof(Descriptor)),
                           ZKP_ABI_MAJOR,
                           ZKP_ABI_MINOR,
                           static_cast<uint32_t>(kind),
                           0u,
                           name,
                           version,
                           build_tag,
                           init,
                           self_test};
}

// The engine's host table, kept by the plugin from init on (constant-initialized: no static
// initializer runs).
inline const zkp_host* g_host = nullptr;

inline void set_host(const zkp_host* host) {
  g_host = host;
}

inline void log(int32_t level, const char* plugin, const std::string& message) {
  if (g_host != nullptr && g_host->log != nullptr) g_host->log(level, plugin, message.c_str());
}

}  // namespace zkpipe::sdk
