// zkpipe/log_context.h: what a log line is about (job, request id, partition, stage, plugin),
// kept per thread while a worker handles one thing. `log.format: json` writes these as fields of
// each line's object (zkpipe/log.h set_log_format); the text format leaves them out, since its
// messages name the job already.
// Thread-safety: the context is thread-local; a LogScope belongs to the thread that made it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace zkpipe {

struct LogContext {
  uint64_t job = 0;        // the job's id (the store's, in the daemon); 0: none
  std::string request_id;  // the client's request id; empty: none
  int64_t partition = -1;  // the partition's position in its job; -1: none
  std::string_view
      stage;  // a static name: parse, params, synthesize, prove_start, ...; empty: none
  std::string_view plugin;  // the plugin that logs the line (the host's log callback); empty: none
};

// This thread's context (empty fields where nothing is set).
const LogContext& log_context();

// Sets this thread's context for its lifetime and restores the one before. Scopes nest: an inner
// scope made with `stage` or `partition` keeps the outer one's other fields.
class LogScope {
 public:
  explicit LogScope(LogContext context);
  LogScope(uint64_t job, std::string request_id, int64_t partition, std::string_view stage)
      : LogScope(LogContext{job, std::move(request_id), partition, stage, {}}) {}
  ~LogScope();
  LogScope(const LogScope&) = delete;
  LogScope& operator=(const LogScope&) = delete;

  // The current context with another stage (and partition, where >= 0).
  static LogContext stage(std::string_view stage, int64_t partition = -1);

 private:
  LogContext saved_;
};

}  // namespace zkpipe
