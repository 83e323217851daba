// zkpipe-bench-h2d: host-to-device bandwidth of each memory backend's buffers (pageable copies,
// pinned DMA, mapped zero-copy reads by a kernel), per size, on one GPU. Its own program, built
// with CUDA, so zkpipe-tool and zkpipe link none.
#include <exception>
#include <new>

#include <fmt/core.h>

#include "tools/commands.h"
#include "zkpipe/version.h"

int main(int argc, char** argv) {
  CLI::App app{
      "zkpipe-bench-h2d: measures host-to-device bandwidth of each memory backend; exit 0 all "
      "measured, 1 any row skipped or failed, 2 bad input"};
  app.set_version_flag("--version", zkpipe::version_text("zkpipe-bench-h2d"));
  int exit_code = 0;
  zkpipe::tool::add_bench_h2d(app, &exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  } catch (const std::bad_alloc& e) {
    fmt::print(stderr, "zkpipe-bench-h2d: RESOURCE_EXHAUSTED: out of memory ({})\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    fmt::print(stderr, "zkpipe-bench-h2d: internal error: {}\n", e.what());
    return 1;
  }
  return exit_code;
}
