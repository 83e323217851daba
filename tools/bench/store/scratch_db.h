// scratch_db.h: zkpipe-bench-store's clean slate on PostgreSQL: a new, empty database
// (zkpipe_bench_<pid>) created through the caller's connection (conninfo, or PG* when empty) and
// dropped, with any session still in it, when the ScratchDatabase is destroyed.
// Thread-safety: none; create and destroy it on one thread, with no store of it still open.
#pragma once

#include <memory>
#include <string>

#include "zkpipe/sdk/status.h"

namespace zkpipe::bench {

class ScratchDatabase {
 public:
  // UNAVAILABLE naming the server's error when it cannot connect or create the database.
  static Result<std::unique_ptr<ScratchDatabase>> create(const std::string& conninfo);
  ~ScratchDatabase();
  ScratchDatabase(const ScratchDatabase&) = delete;
  ScratchDatabase& operator=(const ScratchDatabase&) = delete;

  const std::string& name() const { return name_; }
  // The caller's conninfo with dbname set to this database (key=value form).
  const std::string& conninfo() const { return conninfo_; }
  // "server 15.20 (Debian ...), fsync on, synchronous_commit on": what a commit's cost depends
  // on (pg_virtualenv, behind tests/store/with_postgres.sh, turns fsync off).
  const std::string& server() const { return server_; }

 private:
  ScratchDatabase(std::string admin_conninfo, std::string name, std::string conninfo,
                  std::string server)
      : admin_conninfo_(std::move(admin_conninfo)),
        name_(std::move(name)),
        conninfo_(std::move(conninfo)),
        server_(std::move(server)) {}
  std::string admin_conninfo_, name_, conninfo_, server_;
};

}  // namespace zkpipe::bench
