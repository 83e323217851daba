// tests/store/postgres_fixture.h: what the PostgreSQL store's tests (postgres_store_test.cpp)
// need of the server they run against (the one pg_virtualenv starts: PGHOST, PGPORT, PGUSER,
// PGPASSWORD, PGDATABASE): a REQUIRE that it is there (a missing server fails, never skips), a
// new empty database per store a check asks for (dropped at the end of the case), and plain SQL
// through the store's own connection class for what a test does behind the store's back.
// Thread-safety: call from the Catch2 test thread.
#pragma once

#include <unistd.h>
#include <catch2/catch.hpp>

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "../engine/store/postgres_conn.h"
#include "store/conformance_support.h"

namespace zkpipe::store::pgtest {

// Plain SQL against one database of the test server (values still as parameters).
class Sql {
 public:
  explicit Sql(const std::string& conninfo = "") : conn_(conninfo) {
    Status s = conn_.connect();
    INFO(s.to_string());
    REQUIRE(s.ok());
  }
  PgRows run(const std::string& sql, const PgParams& params = {}) {
    Result<PgRows> r = conn_.exec("test", sql.c_str(), params);
    INFO(sql << ": " << r.status().to_string());
    REQUIRE(r.ok());
    return std::move(r).value();
  }

 private:
  PgConn conn_;
};

// Fails the case unless a server is configured and answers.
inline void require_server() {
  const char* host = std::getenv("PGHOST");
  const char* port = std::getenv("PGPORT");
  INFO(
      "PGHOST/PGPORT are not set: run these tests under tests/store/with_postgres.sh, which "
      "starts a throw-away PostgreSQL server (pg_virtualenv)");
  REQUIRE(host != nullptr);
  REQUIRE(port != nullptr);
  Sql server;
  CHECK(server.run("SELECT 1").size() == 1);
}

// New databases for one test case, dropped when it ends.
class Databases {
 public:
  Databases() { require_server(); }
  ~Databases() {
    Sql server;
    for (const std::string& name : names_) {
      server.run("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
    }
  }
  // "dbname=zkpipe_t<pid>_<n>": the rest of the connection comes from PG*.
  std::string create() {
    static int counter = 0;
    const std::string name =
        "zkpipe_t" + std::to_string(::getpid()) + "_" + std::to_string(++counter);
    Sql server;
    server.run("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
    server.run("CREATE DATABASE " + name);
    names_.push_back(name);
    return "dbname=" + name;
  }
  StoreConfig fresh() {
    StoreConfig config;
    config.backend = "postgres";
    config.postgres_conninfo = create();
    return config;
  }
  conformance::StoreUnderTest under_test() {
    conformance::StoreUnderTest sut;
    sut.fresh = [this] { return fresh(); };
    return sut;
  }

 private:
  std::vector<std::string> names_;
};

}  // namespace zkpipe::store::pgtest
