// trace_test.cpp: TraceRecorder, chrome_trace_json, summarize_track(s), timeline_svg and
// (zkpipe/pipeline/trace.h): concurrency of the recorder, exact JSON times,
// busy unions, clipping and gap percentiles on known patterns, and the SVG's rects and escaping.
// Thread-safety: Catch2 test cases; the recorder tests start their own threads.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "feature_required.h"
#include "temp_dir.h"
#include "zkpipe/pipeline/trace.h"

namespace {

using zkpipe::pipeline::chrome_trace_json;
using zkpipe::pipeline::Span;
using zkpipe::pipeline::summarize_track;
using zkpipe::pipeline::summarize_tracks;
using zkpipe::pipeline::timeline_svg;
using zkpipe::pipeline::TraceRecorder;
using zkpipe::pipeline::TrackSummary;

constexpr int64_t kMs = 1'000'000;

Span make_span(std::string track, std::string name, int64_t start, int64_t end, bool busy = true,
               uint64_t job = 0, int32_t partition = -1) {
  Span s;
  s.track = std::move(track);
  s.name = std::move(name);
  s.start_ns = start;
  s.end_ns = end;
  s.busy = busy;
  s.job = job;
  s.partition = partition;
  return s;
}

size_t count_of(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
    ++n;
  }
  return n;
}

// Busy 1 ms, then gaps of `gaps_ms[i]` ms each followed by 1 ms busy, on track "compute-0".
std::vector<Span> gap_pattern(const std::vector<int64_t>& gaps_ms, int64_t* end_ns) {
  std::vector<Span> spans;
  int64_t t = 0;
  spans.push_back(make_span("compute-0", "msm", t, t + kMs));
  t += kMs;
  for (int64_t g : gaps_ms) {
    t += g * kMs;
    spans.push_back(make_span("compute-0", "msm", t, t + kMs));
    t += kMs;
  }
  *end_ns = t;
  return spans;
}

// 1..100 in a fixed shuffled order, so that percentiles do not follow the order in time.
std::vector<int64_t> one_to_hundred_shuffled() {
  std::vector<int64_t> gaps;
  for (int64_t k = 0; k < 100; ++k) gaps.push_back((k * 37) % 100 + 1);  // 37 is coprime to 100
  return gaps;
}

}  // namespace

TEST_CASE("Trace: recorder keeps every span from 4 threads, sorted by track and start",
          "[pipeline]") {
  TraceRecorder recorder;
  constexpr int kThreads = 4, kPerThread = 1000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&recorder, t] {
      for (int k = 0; k < kPerThread; ++k) {
        // Half on the thread's own track, half on a shared one; starts decrease in time.
        const std::string track = k % 2 ? "shared" : "worker-" + std::to_string(t);
        const int64_t start = (kPerThread - k) * 10 + t;
        recorder.add(make_span(track, "ntt", start, start + 5, true,
                               static_cast<uint64_t>(t * kPerThread + k + 1)));
      }
    });
  }
  for (auto& th : threads) th.join();

  const std::vector<Span> spans = recorder.spans();
  REQUIRE(spans.size() == kThreads * kPerThread);
  std::set<uint64_t> jobs;
  for (const Span& s : spans) jobs.insert(s.job);
  CHECK(jobs.size() == kThreads * kPerThread);
  CHECK(*jobs.begin() == 1);
  CHECK(*jobs.rbegin() == kThreads * kPerThread);
  CHECK(std::is_sorted(spans.begin(), spans.end(), [](const Span& a, const Span& b) {
    return std::pair(a.track, a.start_ns) < std::pair(b.track, b.start_ns);
  }));
  CHECK(spans.front().track == "shared");
  CHECK(spans.back().track == "worker-3");
}

TEST_CASE("Trace: Scope records a span with end >= start", "[pipeline]") {
  TraceRecorder recorder;
  const int64_t before = recorder.now_ns();
  {
    auto scope = recorder.scope("device-cpu0", "lock_wait", 7, 2, false);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    auto moved = std::move(scope);  // the moved-from scope must not add a second span
  }
  {
    auto scope = recorder.scope("finalizer-0", "finalize");
    scope.finish();
    scope.finish();  // and neither do later finish() calls or the destructor
  }
  const std::vector<Span> spans = recorder.spans();
  REQUIRE(spans.size() == 2);
  const Span& wait = spans[0];
  CHECK(wait.track == "device-cpu0");
  CHECK(wait.name == "lock_wait");
  CHECK(wait.job == 7);
  CHECK(wait.partition == 2);
  CHECK_FALSE(wait.busy);
  CHECK(wait.start_ns >= before);
  CHECK(wait.end_ns - wait.start_ns >= 2 * kMs);
  CHECK(spans[1].track == "finalizer-0");
  CHECK(spans[1].busy);
  CHECK(spans[1].end_ns >= spans[1].start_ns);
  CHECK(spans[1].start_ns >= wait.end_ns);
}

TEST_CASE("Trace: byte counters sum across threads", "[pipeline]") {
  TraceRecorder recorder;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&recorder] {
      for (uint64_t k = 1; k <= 1000; ++k) {
        recorder.add_bytes("h2d", k);
        recorder.add_bytes(std::string("d2h"), 3);
      }
    });
  }
  for (auto& th : threads) th.join();
  const std::map<std::string, uint64_t> counters = recorder.byte_counters();
  CHECK(counters.size() == 2);
  CHECK(counters.at("h2d") == 4 * 500500);
  CHECK(counters.at("d2h") == 4 * 3000);
}

TEST_CASE("Trace: chrome JSON has one X event per span with ts and dur in microseconds",
          "[pipeline]") {
  // Unsorted input; tracks sort as compute-0 < device-cpu0 < synthesis-0.
  const std::vector<Span> spans = {
      make_span("synthesis-0", "synthesis", 1500, 2'001'500, true, 3, 1),
      make_span("device-cpu0", "queue_wait", 10, 20'010, false, 3),
      make_span("compute-0", "msm", 7, 8, true, 0, 0),
      make_span("device-cpu0", "h2d", 5000, 5000),
  };
  const nlohmann::json extra = {{"config", "cpu.yaml"}, {"busy_fraction", 0.75}};
  const auto doc = nlohmann::json::parse(chrome_trace_json(spans, "run <1>", extra));

  CHECK(doc.at("displayTimeUnit") == "ms");
  CHECK(doc.at("otherData") == extra);
  std::map<int, std::string> thread_names;
  std::string process_name;
  std::vector<nlohmann::json> xs;
  for (const auto& e : doc.at("traceEvents")) {
    CHECK(e.at("pid") == 1);
    if (e.at("ph") == "X") xs.push_back(e);
    if (e.at("ph") == "M" && e.at("name") == "thread_name") {
      thread_names[e.at("tid").get<int>()] = e.at("args").at("name").get<std::string>();
    }
    if (e.at("ph") == "M" && e.at("name") == "process_name") {
      process_name = e.at("args").at("name").get<std::string>();
    }
  }
  CHECK(process_name == "run <1>");
  CHECK(thread_names ==
        std::map<int, std::string>{{0, "compute-0"}, {1, "device-cpu0"}, {2, "synthesis-0"}});
  REQUIRE(xs.size() == spans.size());
  for (const Span& s : spans) {
    INFO(s.track << " " << s.name);
    auto it = std::find_if(xs.begin(), xs.end(), [&](const nlohmann::json& e) {
      return e.at("name") == s.name && thread_names[e.at("tid").get<int>()] == s.track;
    });
    REQUIRE(it != xs.end());
    CHECK(it->at("ts").get<double>() == static_cast<double>(s.start_ns) / 1000.0);
    CHECK(it->at("dur").get<double>() == static_cast<double>(s.end_ns - s.start_ns) / 1000.0);
    CHECK(it->at("cat") == (s.busy ? "busy" : "wait"));
    const nlohmann::json args = it->value("args", nlohmann::json::object());
    CHECK(args.contains("job") == (s.job != 0));
    CHECK(args.contains("partition") == (s.partition >= 0));
    if (s.job != 0) CHECK(args.at("job") == s.job);
    if (s.partition >= 0) CHECK(args.at("partition") == s.partition);
    CHECK(it->contains("args") == (s.job != 0 || s.partition >= 0));
  }
  CHECK(xs[0].at("ts").get<double>() == 0.007);  // sorted by track: compute-0 first
  CHECK(xs[3].at("dur").get<double>() == 2000.0);
}

TEST_CASE("Trace: chrome JSON of no spans names the process and has no otherData", "[pipeline]") {
  const auto doc = nlohmann::json::parse(chrome_trace_json({}, "empty"));
  CHECK_FALSE(doc.contains("otherData"));
  REQUIRE(doc.at("traceEvents").size() == 1);
  CHECK(doc.at("traceEvents")[0].at("args").at("name") == "empty");
}

TEST_CASE("Trace: summarize_track merges overlapping busy spans into their union", "[pipeline]") {
  const std::vector<Span> spans = {
      make_span("t", "msm", 0, 10 * kMs), make_span("t", "ntt", 5 * kMs, 15 * kMs),
      make_span("t", "h2d", 15 * kMs, 20 * kMs), make_span("t", "msm", 30 * kMs, 40 * kMs),
      make_span("other", "msm", 20 * kMs, 30 * kMs)};
  const TrackSummary s = summarize_track(spans, "t", 0, 40 * kMs);
  CHECK(s.track == "t");
  CHECK(s.wall_s == Approx(0.040));
  CHECK(s.busy_s == Approx(0.030));
  CHECK(s.busy_fraction == Approx(0.75));
  CHECK(s.spans == 4);
  CHECK(s.idle_gaps == 1);
  CHECK(s.gap_max_ms == Approx(10.0));
}

TEST_CASE("Trace: summarize_track clips spans at the window", "[pipeline]") {
  const std::vector<Span> spans = {
      make_span("t", "msm", -50 * kMs, 30 * kMs), make_span("t", "msm", 80 * kMs, 200 * kMs),
      make_span("t", "msm", 150 * kMs, 300 * kMs), make_span("t", "msm", -9 * kMs, -1 * kMs)};
  const TrackSummary s = summarize_track(spans, "t", 0, 100 * kMs);
  CHECK(s.wall_s == Approx(0.1));
  CHECK(s.busy_s == Approx(0.05));
  CHECK(s.busy_fraction == Approx(0.5));
  CHECK(s.spans == 2);
  CHECK(s.idle_gaps == 1);  // 30..80 ms; none at the edges
  CHECK(s.gap_p50_ms == Approx(50.0));
}

TEST_CASE("Trace: summarize_track ignores wait spans for busy time", "[pipeline]") {
  const std::vector<Span> spans = {make_span("t", "msm", 10 * kMs, 20 * kMs),
                                   make_span("t", "queue_wait", 0, 10 * kMs, false),
                                   make_span("t", "lock_wait", 20 * kMs, 40 * kMs, false)};
  const TrackSummary s = summarize_track(spans, "t", 0, 40 * kMs);
  CHECK(s.busy_s == Approx(0.010));
  CHECK(s.busy_fraction == Approx(0.25));
  CHECK(s.spans == 1);
  CHECK(s.idle_gaps == 2);  // leading 10 ms and trailing 20 ms
  CHECK(s.gap_p50_ms == Approx(10.0));
  CHECK(s.gap_max_ms == Approx(20.0));
}

TEST_CASE("Trace: summarize_track counts gaps of 1 to 100 ms with exact percentiles",
          "[pipeline]") {
  int64_t end = 0;
  const std::vector<Span> spans = gap_pattern(one_to_hundred_shuffled(), &end);
  const TrackSummary s = summarize_track(spans, "compute-0", 0, end);
  CHECK(s.spans == 101);
  CHECK(s.busy_s == Approx(0.101));
  CHECK(s.wall_s == Approx(0.101 + 5.050));
  CHECK(s.idle_gaps == 100);
  CHECK(s.gap_p50_ms == 50.0);
  CHECK(s.gap_p99_ms == 99.0);
  CHECK(s.gap_max_ms == 100.0);
}

TEST_CASE("Trace: summarize_track min_gap_ns filters shorter gaps", "[pipeline]") {
  int64_t end = 0;
  const std::vector<Span> spans = gap_pattern(one_to_hundred_shuffled(), &end);
  const TrackSummary s = summarize_track(spans, "compute-0", 0, end, 50 * kMs);
  CHECK(s.idle_gaps == 51);      // 50..100 ms
  CHECK(s.gap_p50_ms == 75.0);   // rank ceil(0.50 * 51) = 26: 50 + 25
  CHECK(s.gap_p99_ms == 100.0);  // rank ceil(0.99 * 51) = 51
  CHECK(s.gap_max_ms == 100.0);
  CHECK(s.busy_s == Approx(0.101));  // the filter changes gaps only

  const TrackSummary none = summarize_track(spans, "compute-0", 0, end, 101 * kMs);
  CHECK(none.idle_gaps == 0);
  CHECK(none.gap_p50_ms == 0.0);
  CHECK(none.gap_max_ms == 0.0);
}

TEST_CASE("Trace: summarize_track of an empty track is one gap the size of the window",
          "[pipeline]") {
  const std::vector<Span> spans = {make_span("t", "msm", 0, kMs),
                                   make_span("empty", "queue_wait", 0, 5 * kMs, false)};
  const TrackSummary s = summarize_track(spans, "empty", 2 * kMs, 32 * kMs);
  CHECK(s.busy_s == 0.0);
  CHECK(s.busy_fraction == 0.0);
  CHECK(s.spans == 0);
  CHECK(s.idle_gaps == 1);
  CHECK(s.gap_p50_ms == Approx(30.0));
  CHECK(s.gap_max_ms == Approx(30.0));
  CHECK(summarize_track(spans, "empty", 2 * kMs, 32 * kMs, 30 * kMs).idle_gaps == 1);
  CHECK(summarize_track(spans, "empty", 2 * kMs, 32 * kMs, 31 * kMs).idle_gaps == 0);
  const TrackSummary inverted = summarize_track(spans, "t", 10, 5);
  CHECK(inverted.wall_s == 0.0);
  CHECK(inverted.idle_gaps == 0);
}

TEST_CASE("Trace: summarize_tracks selects tracks by prefix", "[pipeline]") {
  const std::vector<Span> spans = {
      make_span("compute-cpu0-1", "msm", 0, 5 * kMs), make_span("device-cpu0", "h2d", 0, kMs),
      make_span("compute-cpu0-0", "ntt", 0, 10 * kMs), make_span("synthesis-0", "synthesis", 0, 1),
      make_span("xcompute-0", "msm", 0, kMs)};
  const auto compute = summarize_tracks(spans, "compute-", 0, 10 * kMs);
  REQUIRE(compute.size() == 2);
  CHECK(compute[0].track == "compute-cpu0-0");
  CHECK(compute[0].busy_fraction == Approx(1.0));
  CHECK(compute[1].track == "compute-cpu0-1");
  CHECK(compute[1].busy_fraction == Approx(0.5));
  const auto device = summarize_tracks(spans, "device-", 0, 10 * kMs);
  REQUIRE(device.size() == 1);
  CHECK(device[0].track == "device-cpu0");
  CHECK(summarize_tracks(spans, "finalizer-", 0, 10 * kMs).empty());
  CHECK(summarize_tracks(spans, "", 0, 10 * kMs).size() == 5);
}

TEST_CASE("Trace: timeline_svg draws one rect per span plus background, rows and legend",
          "[pipeline]") {
  const std::vector<Span> spans = {
      make_span("synthesis-0", "synthesis", 0, 400 * kMs, true, 1),
      make_span("synthesis-0", "synthesis", 400 * kMs, 800 * kMs, true, 2),
      make_span("compute-cpu0-0", "queue_wait", 0, 100 * kMs, false, 1, 0),
      make_span("compute-cpu0-0", "prove_start", 100 * kMs, 912 * kMs + 300'000, true, 3, 1),
      make_span("device-cpu0", "msm", 200 * kMs, 1200 * kMs, true, 1, 0)};
  const std::string svg = timeline_svg(spans, "cpu run");
  CHECK(svg.rfind("<svg", 0) == 0);
  CHECK(svg.find("</svg>") != std::string::npos);
  CHECK(count_of(svg, "<rect class=\"span\"") == spans.size());
  CHECK(count_of(svg, "<rect class=\"row\"") == 3);
  CHECK(count_of(svg, "<rect class=\"legend\"") == 4);  // synthesis, queue_wait, prove_start, msm
  CHECK(count_of(svg, "<rect") == spans.size() + 1 + 3 + 4);
  CHECK(count_of(svg, "<title>") == spans.size());
  CHECK(svg.find("<title>job 3 partition 1 prove_start 812.3 ms (start 0.1000 s)</title>") !=
        std::string::npos);
  CHECK(svg.find("url(#wait)") != std::string::npos);
  CHECK(svg.find(">cpu run</text>") != std::string::npos);
  CHECK(svg.find(">1.2</text>") != std::string::npos);  // the last axis tick, in seconds
  CHECK(svg.find("width=\"1600\"") != std::string::npos);
}

TEST_CASE("Trace: timeline_svg draws sub-pixel spans 0.5 px wide", "[pipeline]") {
  const std::vector<Span> spans = {make_span("t", "msm", 0, 10'000 * kMs),
                                   make_span("u", "ntt", 5000 * kMs, 5000 * kMs + 10)};
  const std::string svg = timeline_svg(spans, "tiny");
  CHECK(count_of(svg, "width=\"0.50\"") == 1);
}

TEST_CASE("Trace: timeline_svg escapes XML special characters in every text", "[pipeline]") {
  const std::vector<Span> spans = {make_span("a<&>b", "n\"'<x>", 0, kMs)};
  const std::string svg = timeline_svg(spans, "t&<>");
  CHECK(svg.find("a<&>b") == std::string::npos);
  CHECK(svg.find("a&lt;&amp;&gt;b") != std::string::npos);
  CHECK(svg.find("t&amp;&lt;&gt;") != std::string::npos);
  CHECK(svg.find("n&quot;&apos;&lt;x&gt;") != std::string::npos);
  CHECK(svg.find("<x>") == std::string::npos);
}

TEST_CASE("Trace: timeline_svg output is accepted by xmllint", "[pipeline]") {
  if (!zkpipe::testing::feature_present(
          std::system("command -v xmllint >/dev/null 2>&1") == 0, "XMLLINT",
          "xmllint (Debian libxml2-utils, which scripts/setup installs)")) {
    return;
  }
  TraceRecorder recorder;
  for (int k = 0; k < 20; ++k) {
    recorder.add(make_span("track <" + std::to_string(k % 3) + "> & co", k % 4 ? "msm" : "q\"w'",
                           k * kMs, (k + 2) * kMs, k % 4 != 0, k, k % 2));
  }
  recorder.add(make_span("bad\x01utf8\xff", "x", 0, 1));
  zkpipe::testing::TempDir dir("zkpipe_trace_test");
  const std::vector<std::pair<std::string, std::vector<Span>>> cases = {
      {"run.svg", recorder.spans()}, {"empty.svg", {}}};
  for (const auto& [name, spans] : cases) {
    const std::string path = dir.file(name);
    std::ofstream(path) << timeline_svg(spans, "a & <b>");
    INFO(path);
    CHECK(std::system(("xmllint --noout '" + path + "'").c_str()) == 0);
  }
}
