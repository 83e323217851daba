// trace.cpp: TraceRecorder, chrome_trace_json, summarize_track(s) of
// zkpipe/pipeline/trace.h (timeline_svg lives in timeline_svg.cpp).
// Thread-safety: the recorder guards its spans and its byte counters with one mutex each; the
// free functions touch only their arguments.
#include "zkpipe/pipeline/trace.h"

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <system_error>
#include <tuple>
#include <utility>

#include "zkpipe/sdk/clock.h"
#include "zkpipe/sdk/percentile.h"

namespace zkpipe::pipeline {

bool span_less(const Span& a, const Span& b) {
  return std::tie(a.track, a.start_ns, a.end_ns, a.name, a.job, a.partition) <
         std::tie(b.track, b.start_ns, b.end_ns, b.name, b.job, b.partition);
}

std::vector<std::string> track_names(const std::vector<Span>& spans) {
  std::vector<std::string> names;
  for (const Span& s : spans) names.push_back(s.track);
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

// ---- TraceRecorder ----

TraceRecorder::Scope::Scope(TraceRecorder& recorder, std::string track, std::string name,
                            uint64_t job, int32_t partition, bool busy)
    : recorder_(&recorder) {
  span_.track = std::move(track);
  span_.name = std::move(name);
  span_.job = job;
  span_.partition = partition;
  span_.busy = busy;
  span_.start_ns = recorder.now_ns();
  span_.end_ns = span_.start_ns;
}

TraceRecorder::Scope::Scope(Scope&& other) noexcept
    : recorder_(std::exchange(other.recorder_, nullptr)), span_(std::move(other.span_)) {}

void TraceRecorder::Scope::finish() {
  if (recorder_ == nullptr) return;
  TraceRecorder* recorder = std::exchange(recorder_, nullptr);
  span_.end_ns = std::max(span_.start_ns, recorder->now_ns());
  recorder->add(std::move(span_));
}

TraceRecorder::TraceRecorder() : origin_ns_(zkpipe::now_ns()) {}

int64_t TraceRecorder::now_ns() const {
  return zkpipe::now_ns() - origin_ns_;
}

void TraceRecorder::add(Span span) {
  MutexLock lock(spans_mutex_);
  spans_.push_back(std::move(span));
  if (window_ns_ > 0 && spans_.size() >= prune_at_) {
    // Amortized: the vector is swept when it has doubled since the last sweep.
    const int64_t cut = now_ns() - window_ns_;
    std::erase_if(spans_, [cut](const Span& s) { return s.end_ns < cut; });
    prune_at_ = std::max<size_t>(kMinPruneAt, 2 * spans_.size());
  }
}

void TraceRecorder::set_window_ns(int64_t window_ns) {
  MutexLock lock(spans_mutex_);
  window_ns_ = window_ns;
}

std::vector<Span> TraceRecorder::spans_since(int64_t from_ns) const {
  std::vector<Span> copy;
  {
    MutexLock lock(spans_mutex_);
    for (const Span& s : spans_) {
      if (s.end_ns >= from_ns) copy.push_back(s);
    }
  }
  std::sort(copy.begin(), copy.end(), span_less);
  return copy;
}

void TraceRecorder::add_bytes(std::string_view counter, uint64_t bytes) {
  MutexLock lock(bytes_mutex_);
  auto it = bytes_.find(counter);
  if (it == bytes_.end()) it = bytes_.emplace(std::string(counter), 0).first;
  it->second += bytes;
}

std::vector<Span> TraceRecorder::spans() const {
  std::vector<Span> copy;
  {
    MutexLock lock(spans_mutex_);
    copy = spans_;
  }
  std::sort(copy.begin(), copy.end(), span_less);
  return copy;
}

std::map<std::string, uint64_t> TraceRecorder::byte_counters() const {
  MutexLock lock(bytes_mutex_);
  return {bytes_.begin(), bytes_.end()};
}

TraceRecorder::Scope TraceRecorder::scope(std::string track, std::string name, uint64_t job,
                                          int32_t partition, bool busy) {
  return Scope(*this, std::move(track), std::move(name), job, partition, busy);
}

// ---- Chrome trace JSON ----

std::string chrome_trace_json(const std::vector<Span>& spans, std::string_view title,
                              const nlohmann::json& extra) {
  using nlohmann::json;
  std::vector<Span> sorted = spans;
  std::sort(sorted.begin(), sorted.end(), span_less);
  const std::vector<std::string> tracks = track_names(sorted);

  std::vector<json> events;
  events.reserve(sorted.size() + 2 * tracks.size() + 1);
  events.push_back({{"name", "process_name"},
                    {"ph", "M"},
                    {"pid", 1},
                    {"tid", 0},
                    {"args", {{"name", std::string(title)}}}});
  for (size_t i = 0; i < tracks.size(); ++i) {
    events.push_back({{"name", "thread_name"},
                      {"ph", "M"},
                      {"pid", 1},
                      {"tid", i},
                      {"args", {{"name", tracks[i]}}}});
    events.push_back({{"name", "thread_sort_index"},
                      {"ph", "M"},
                      {"pid", 1},
                      {"tid", i},
                      {"args", {{"sort_index", i}}}});
  }
  size_t tid = 0;  // sorted spans visit the tracks in order
  for (const Span& s : sorted) {
    while (tracks[tid] != s.track) ++tid;
    json event = {
        {"name", s.name},
        {"cat", s.busy ? "busy" : "wait"},
        {"ph", "X"},
        {"pid", 1},
        {"tid", tid},
        {"ts", static_cast<double>(s.start_ns) / 1000.0},
        {"dur", static_cast<double>(std::max<int64_t>(0, s.end_ns - s.start_ns)) / 1000.0}};
    json args = json::object();
    if (s.job != 0) args["job"] = s.job;
    if (s.partition >= 0) args["partition"] = s.partition;
    if (!args.empty()) event["args"] = std::move(args);
    events.push_back(std::move(event));
  }

  const auto dump = [](const json& j) {
    return j.dump(-1, ' ', false, json::error_handler_t::replace);
  };
  std::string out = "{\"displayTimeUnit\":\"ms\",\n";
  if (!extra.is_null() && !extra.empty()) out += "\"otherData\":" + dump(extra) + ",\n";
  out += "\"traceEvents\":[\n";
  for (size_t i = 0; i < events.size(); ++i) {
    out += dump(events[i]);
    out += i + 1 < events.size() ? ",\n" : "\n";
  }
  out += "]}\n";
  return out;
}

// ---- Summaries ----

TrackSummary summarize_track(const std::vector<Span>& spans, std::string_view track,
                             int64_t from_ns, int64_t to_ns, int64_t min_gap_ns) {
  TrackSummary summary;
  summary.track = std::string(track);
  if (to_ns <= from_ns) return summary;
  summary.wall_s = static_cast<double>(to_ns - from_ns) / 1e9;

  // Busy intervals clipped to the window.
  std::vector<std::pair<int64_t, int64_t>> busy;
  for (const Span& s : spans) {
    if (!s.busy || s.track != track) continue;
    const int64_t lo = std::max(s.start_ns, from_ns);
    const int64_t hi = std::min(s.end_ns, to_ns);
    if (lo < hi) {
      busy.emplace_back(lo, hi);
      ++summary.spans;
    } else if (s.start_ns >= s.end_ns && s.start_ns >= from_ns && s.start_ns <= to_ns) {
      ++summary.spans;  // zero-length (or inverted) span inside the window: no busy time
    }
  }
  std::sort(busy.begin(), busy.end());

  // Merge into a union, collecting the gaps as we go.
  std::vector<int64_t> gaps;
  const auto add_gap = [&](int64_t gap) {
    if (gap > 0 && gap >= min_gap_ns) gaps.push_back(gap);
  };
  int64_t busy_ns = 0;
  int64_t cursor = from_ns;  // end of the merged busy time so far
  bool open = false;         // an interval [run_start, cursor) is being merged
  int64_t run_start = from_ns;
  for (const auto& [lo, hi] : busy) {
    if (open && lo <= cursor) {
      cursor = std::max(cursor, hi);
      continue;
    }
    if (open) busy_ns += cursor - run_start;
    add_gap(lo - cursor);
    run_start = lo;
    cursor = hi;
    open = true;
  }
  if (open) busy_ns += cursor - run_start;
  add_gap(to_ns - cursor);

  summary.busy_s = static_cast<double>(busy_ns) / 1e9;
  summary.busy_fraction = static_cast<double>(busy_ns) / static_cast<double>(to_ns - from_ns);
  summary.idle_gaps = gaps.size();
  if (!gaps.empty()) {
    std::sort(gaps.begin(), gaps.end());
    summary.gap_p50_ms = static_cast<double>(nearest_rank(gaps, 50)) / 1e6;
    summary.gap_p99_ms = static_cast<double>(nearest_rank(gaps, 99)) / 1e6;
    summary.gap_max_ms = static_cast<double>(gaps.back()) / 1e6;
  }
  return summary;
}

std::vector<TrackSummary> summarize_tracks(const std::vector<Span>& spans,
                                           std::string_view track_prefix, int64_t from_ns,
                                           int64_t to_ns, int64_t min_gap_ns) {
  std::vector<TrackSummary> out;
  for (const std::string& track : track_names(spans)) {
    if (std::string_view(track).substr(0, track_prefix.size()) != track_prefix) continue;
    out.push_back(summarize_track(spans, track, from_ns, to_ns, min_gap_ns));
  }
  return out;
}

}  // namespace zkpipe::pipeline
