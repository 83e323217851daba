// open_store.cpp: open_store of zkpipe/store/job_store.h, dispatching on store.backend.
#include "stores.h"

namespace zkpipe::store {

Result<std::unique_ptr<JobStore>> open_store(const StoreConfig& config) {
  if (config.backend == "sqlite") {
    if (config.sqlite_path.empty()) {
      return invalid_argument(
          "store.sqlite.path is empty: the SQLite store needs a file (the caller resolves the "
          "default, jobs.db beside the params directory)");
    }
    return open_sqlite_store(config);
  }
  if (config.backend == "postgres") return open_postgres_store(config);
  return invalid_argument("store.backend '" + echo_value(config.backend) +
                          "' is not one of: sqlite, postgres");
}

}  // namespace zkpipe::store
