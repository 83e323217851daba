// sqlite_schema.h: private to engine/store. The SQLite store's schema (zk_meta, zk_job,
// zk_partition, zk_blob, zk_worker) and its migration to kSchemaVersion.
// Thread-safety: call with the connection held (at open).
#pragma once

#include "sqlite_db.h"

namespace zkpipe::store {

// Brings the file to kSchemaVersion in one transaction (version 0, an empty file: the whole
// schema) and returns the version it found. A newer version than this build knows, or a
// database of something else, is FAILED_PRECONDITION naming the file.
Result<int> migrate_schema(SqliteDb& db);

}  // namespace zkpipe::store
