// stores.h: private to engine/store. The factories behind open_store (open_store.cpp), one per
// backend; each opens (creating or migrating) the store its part of the config names.
// Thread-safety: each call opens its own store; the stores are thread-safe.
#pragma once

#include <memory>
#include <string>

#include "zkpipe/store/job_store.h"

namespace zkpipe::store {

// config.sqlite_path (non-empty; the caller resolves the default) with an exclusive lock on
// "<path>.lock" for the store's lifetime (sqlite_open.cpp).
Result<std::unique_ptr<JobStore>> open_sqlite_store(const StoreConfig& config);

// The pid the SQLite store's holder wrote into "<path>.lock"; "unknown" while it has not yet
// (or it is gone) (sqlite_open.cpp).
std::string holder_pid(const std::string& pid_path);

// config.postgres_conninfo, shared by any number of daemons (postgres_store.cpp).
Result<std::unique_ptr<JobStore>> open_postgres_store(const StoreConfig& config);

}  // namespace zkpipe::store
