// zkpipe/pipeline/trace.h: timing spans of a pipelined run (TraceRecorder), their Chrome-trace
// JSON (Perfetto, chrome://tracing), per-track summaries (busy time, idle gaps) and an SVG
// timeline picture.
// Thread-safety: TraceRecorder's add, add_bytes, now_ns, spans and byte_counters may be called
// from any thread at once; a Scope belongs to one thread. The free functions are pure.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "zkpipe/sdk/status.h"
#include "zkpipe/thread_annotations.h"

namespace zkpipe::pipeline {

// One timed step. Times are nanoseconds since the recorder's origin (steady clock).
struct Span {
  std::string track;  // "synthesis-0", "compute-cpu0-0", "device-cpu0", "finalizer-0", ...
  std::string name;   // "synthesis", "queue_wait", "h2d", "ntt", "msm", "prove_start", ...
  int64_t start_ns = 0, end_ns = 0;
  uint64_t job = 0;        // 0: none
  int32_t partition = -1;  // -1: none
  bool busy = true;        // counts as busy time for its track's summary (waits are busy = false)
};

// The order of TraceRecorder::spans(): track (byte-wise), then start, end, name, job,
// partition.
bool span_less(const Span& a, const Span& b);

// The distinct track names of `spans`, sorted byte-wise.
std::vector<std::string> track_names(const std::vector<Span>& spans);

class TraceRecorder {
 public:
  // Records [construction, finish() or destruction) as one span; moves, never copies.
  class Scope {
   public:
    Scope(TraceRecorder& recorder, std::string track, std::string name, uint64_t job = 0,
          int32_t partition = -1, bool busy = true);
    ~Scope() { finish(); }
    Scope(Scope&& other) noexcept;
    Scope& operator=(Scope&&) = delete;
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

    // Ends the span now and adds it; later calls (and the destructor) do nothing.
    void finish();
    int64_t start_ns() const { return span_.start_ns; }

   private:
    TraceRecorder* recorder_;  // null once finished or moved from
    Span span_;
  };

  TraceRecorder();  // origin = now
  TraceRecorder(const TraceRecorder&) = delete;
  TraceRecorder& operator=(const TraceRecorder&) = delete;

  // Nanoseconds since the origin.
  int64_t now_ns() const;
  // Thread-safe; a push_back under a mutex.
  void add(Span span);
  // Thread-safe running totals per counter, e.g. "h2d".
  void add_bytes(std::string_view counter, uint64_t bytes);
  // A copy, sorted by span_less.
  std::vector<Span> spans() const;
  // The spans that end at or after `from_ns`, sorted by span_less.
  std::vector<Span> spans_since(int64_t from_ns) const;
  // Keeps only spans that ended within the last `window_ns` (0, the default: all), for a
  // long-lived process; older ones are dropped as new ones come.
  void set_window_ns(int64_t window_ns);
  std::map<std::string, uint64_t> byte_counters() const;

  Scope scope(std::string track, std::string name, uint64_t job = 0, int32_t partition = -1,
              bool busy = true);

 private:
  const int64_t origin_ns_;  // steady clock at construction
  static constexpr size_t kMinPruneAt = 4096;
  mutable Mutex spans_mutex_;
  std::vector<Span> spans_ ZKP_GUARDED_BY(spans_mutex_);
  int64_t window_ns_ ZKP_GUARDED_BY(spans_mutex_) = 0;
  size_t prune_at_ ZKP_GUARDED_BY(spans_mutex_) = kMinPruneAt;
  mutable Mutex bytes_mutex_;
  std::map<std::string, uint64_t, std::less<>> bytes_ ZKP_GUARDED_BY(bytes_mutex_);
};

// Chrome trace event format: {"traceEvents": [...], "displayTimeUnit": "ms", "otherData":
// extra}. One "X" event per span (ts, dur in microseconds, fractional; pid 1; tid = index of the
// span's track in track_names(spans), from 0; cat "busy" or "wait"; args {job, partition} with
// the fields that are set, absent when neither is), in span_less order; "M" events
// process_name (`title`), and thread_name and thread_sort_index per track. otherData is left
// out when `extra` is null or empty. Negative durations are written as 0. Invalid UTF-8 in
// names is replaced by U+FFFD. One event per line.
std::string chrome_trace_json(const std::vector<Span>& spans, std::string_view title,
                              const nlohmann::json& extra = nlohmann::json::object());

struct TrackSummary {
  std::string track;
  // busy = union of the busy spans clipped to [from, to]; wall = to - from.
  double wall_s = 0, busy_s = 0, busy_fraction = 0;
  // Gaps between consecutive merged busy intervals in the window, plus a leading gap from
  // `from` to the first busy interval and a trailing one to `to`, that are > 0 and
  // >= min_gap_ns (an empty track has one gap: the whole window).
  size_t idle_gaps = 0;
  // Over those gaps, nearest-rank percentiles; 0 when there are none.
  double gap_p50_ms = 0, gap_p99_ms = 0, gap_max_ms = 0;
  // Busy spans overlapping the window (a zero-length span counts when inside it).
  size_t spans = 0;
};

// The summary of `track` over [from_ns, to_ns]; an empty or inverted window has wall 0 and no
// gaps.
TrackSummary summarize_track(const std::vector<Span>& spans, std::string_view track,
                             int64_t from_ns, int64_t to_ns, int64_t min_gap_ns = 0);
// Summaries of the tracks whose name starts with `track_prefix` (e.g. "compute-", "device-"),
// in track_names order.
std::vector<TrackSummary> summarize_tracks(const std::vector<Span>& spans,
                                           std::string_view track_prefix, int64_t from_ns,
                                           int64_t to_ns, int64_t min_gap_ns = 0);

// A self-contained SVG picture of the run (timeline_svg.cpp): `title` at the top, one row per
// track (label on the left, track_names order), one rect per span (class "span"; busy spans
// filled with a fixed colour per span name, waits hatched grey), a time axis in seconds with
// ticks, and a legend of span names. 1600 px wide, rows 22 px. Rects narrower than 0.5 px are
// drawn 0.5 px wide. Each span rect has a <title> for hover: "job 3 partition 1 prove_start
// 812.3 ms (start 1.2345 s)". Rects: 1 background, 1 per row (class "row"), 1 per span, 1 per
// legend entry (class "legend", one per distinct span name).
std::string timeline_svg(const std::vector<Span>& spans, std::string_view title);

}  // namespace zkpipe::pipeline
