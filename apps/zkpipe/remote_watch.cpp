// remote_watch.cpp: watch_job (remote.h), how `zkpipe submit --wait` follows a job of a running
// `zkpipe serve`: the WatchJob stream drawn on stdout, on a terminal as one progress line per
// partition redrawn in place (ANSI), on a pipe or file as one plain line per event.
// Thread-safety: called from the main thread; on a terminal a reader thread feeds it events
// through a mutex-guarded queue, so the view ticks while the stream is quiet.
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include <fmt/core.h>

#include "remote.h"

namespace zkpipe::cli {
namespace {

using Clock = std::chrono::steady_clock;

// More partitions than this are drawn as one summary line (the screen would scroll).
constexpr size_t kMaxPartitionLines = 40;
// An event's partition count above this is not believed (a bad server must not make us
// allocate without bound); the largest proof types have tens of partitions.
constexpr uint32_t kMaxPartitions = 100'000;
// How often the terminal view redraws while no event comes (its clocks tick).
constexpr std::chrono::milliseconds kRedraw{200};
constexpr int kBarWidth = 10;
constexpr int kStages = 5;  // queued, synthesized, proving, proved, verified

// 1..5 for the partition events (the bar's stages), 0 otherwise.
int stage_of(int kind) {
  switch (kind) {
    case v1::EVENT_KIND_QUEUED:
      return 1;
    case v1::EVENT_KIND_SYNTHESIZED:
      return 2;
    case v1::EVENT_KIND_PROVING:
      return 3;
    case v1::EVENT_KIND_PROVED:
      return 4;
    case v1::EVENT_KIND_VERIFIED:
      return 5;
    default:
      return 0;
  }
}

std::string_view stage_name(int stage) {
  static constexpr std::string_view kNames[] = {"waiting", "queued", "synthesized",
                                                "proving", "proved", "verified"};
  return stage >= 0 && stage <= kStages ? kNames[stage] : "?";
}

std::string ended_text(const v1::JobEvent& e) {
  std::string s = fmt::format("ended {} at {:.1f} ms", job_state_text(e.state()), e.elapsed_ms());
  if (e.status_code() != 0) {
    s += fmt::format(": {}: {}", grpc_code_text(e.status_code()), server_text(e.status_message()));
  }
  return s;
}

// The plain line of one event (pipes, files).
std::string event_line(const v1::JobEvent& e) {
  if (e.kind() == v1::EVENT_KIND_JOB_ENDED) {
    return fmt::format("job {}: {}", e.job_id(), ended_text(e));
  }
  const int stage = stage_of(e.kind());
  std::string s = fmt::format("job {} partition {}: {}", e.job_id(), e.partition(),
                              stage > 0 ? std::string(stage_name(stage))
                                        : fmt::format("event {}", static_cast<int>(e.kind())));
  if (!e.device().empty()) s += " on " + server_text(e.device());
  return s + fmt::format(" at {:.1f} ms", e.elapsed_ms());
}

// The terminal view: a header line and one line per partition (position in the request).
class Progress {
 public:
  Progress(uint64_t job, uint32_t partitions, Clock::time_point start)
      : job_(job), start_(start), last_local_(start) {
    resize(partitions);
  }

  void apply(const v1::JobEvent& e, Clock::time_point now) {
    last_elapsed_ms_ = e.elapsed_ms();
    last_local_ = now;
    any_ = true;
    if (e.partitions() > 0 && e.partitions() <= kMaxPartitions) resize(e.partitions());
    if (e.kind() == v1::EVENT_KIND_JOB_ENDED) {
      ended_ = ended_text(e);
      return;
    }
    const int stage = stage_of(e.kind());
    if (stage == 0 || e.position() >= lines_.size()) return;  // nothing we can place
    Line& l = lines_[e.position()];
    l.index = e.partition();
    l.stage = stage;
    l.since_ms = e.elapsed_ms();
    if (e.kind() == v1::EVENT_KIND_PROVING) l.device = server_text(e.device());
  }

  void draw(Clock::time_point now) {
    const double job_ms =
        any_ ? last_elapsed_ms_ + ms_between(last_local_, now) : ms_between(start_, now);
    std::vector<std::string> rows;
    int count[kStages + 1] = {};
    for (const Line& l : lines_) ++count[std::clamp(l.stage, 0, kStages)];
    std::string head = fmt::format("job {}: {}/{} verified", job_, count[kStages], lines_.size());
    for (int s = kStages - 1; s >= 0; --s) {
      if (count[s] > 0) head += fmt::format(", {} {}", count[s], stage_name(s));
    }
    head += ended_.empty() ? fmt::format("; {:.1f}s", job_ms / 1000) : "; " + ended_;
    rows.push_back(std::move(head));
    if (lines_.size() <= kMaxPartitionLines) {
      for (const Line& l : lines_) {
        const int filled = kBarWidth * std::clamp(l.stage, 0, kStages) / kStages;
        std::string row =
            fmt::format("partition {:>3} [{}{}] {}", l.index, std::string(filled, '#'),
                        std::string(kBarWidth - filled, '-'), stage_name(l.stage));
        if (l.stage >= 3 && !l.device.empty()) row += " on " + l.device;
        if (l.stage == kStages) {
          row += fmt::format(" at {:.1f}s", l.since_ms / 1000);
        } else if (l.stage > 0) {
          row += fmt::format(" {:.1f}s", std::max(0.0, job_ms - l.since_ms) / 1000);
        }
        rows.push_back(std::move(row));
      }
    }
    const size_t width = terminal_width();
    std::string out = drawn_ > 0 ? fmt::format("\x1b[{}A", drawn_) : std::string();
    for (std::string& row : rows) {
      if (row.size() >= width) row.resize(width - 1);
      out += "\r\x1b[2K" + row + "\n";
    }
    out += "\x1b[J";  // lines of a longer earlier view
    drawn_ = rows.size();
    std::fwrite(out.data(), 1, out.size(), stdout);
    std::fflush(stdout);
  }

 private:
  struct Line {
    uint32_t index = 0;  // in the sector (the position until an event names it)
    int stage = 0;
    std::string device;
    double since_ms = 0;  // job time of the stage's event
  };

  static double ms_between(Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
  }

  static size_t terminal_width() {
    winsize ws{};
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) != 0 || ws.ws_col < 20) return 80;
    return ws.ws_col;
  }

  void resize(uint32_t n) {
    const size_t old = lines_.size();
    lines_.resize(n);
    for (size_t p = old; p < lines_.size(); ++p) lines_[p].index = static_cast<uint32_t>(p);
  }

  uint64_t job_;
  Clock::time_point start_;
  std::vector<Line> lines_;
  // The job's clock: the last event's elapsed_ms, ticking locally since it came.
  double last_elapsed_ms_ = 0;
  Clock::time_point last_local_;
  bool any_ = false;
  std::string ended_;
  size_t drawn_ = 0;  // rows on the screen from the last draw
};

}  // namespace

Status watch_job(server::Client& client, uint64_t job, uint32_t partitions,
                 std::optional<int64_t> timeout_ms) {
  v1::WatchJobRequest req;
  req.mutable_job()->set_job_id(job);
  std::optional<std::chrono::milliseconds> deadline;
  if (timeout_ms) deadline = std::chrono::milliseconds(*timeout_ms) + kAwaitMargin;
  auto ctx = client.context(deadline);
  std::unique_ptr<grpc::ClientReader<v1::JobEvent>> reader = client.stub().WatchJob(ctx.get(), req);
  bool ended = false;
  if (isatty(STDOUT_FILENO) != 1) {
    v1::JobEvent e;
    while (reader->Read(&e)) {
      fmt::print("{}\n", event_line(e));
      std::fflush(stdout);
      ended = ended || e.kind() == v1::EVENT_KIND_JOB_ENDED;
    }
  } else {
    std::mutex mu;
    std::condition_variable cv;
    std::deque<v1::JobEvent> queue;
    bool done = false;
    std::thread feeder([&] {
      v1::JobEvent e;
      while (reader->Read(&e)) {
        std::lock_guard<std::mutex> lock(mu);
        queue.push_back(std::move(e));
        cv.notify_one();
      }
      std::lock_guard<std::mutex> lock(mu);
      done = true;
      cv.notify_one();
    });
    Progress view(job, std::min(partitions, kMaxPartitions), Clock::now());
    for (bool finished = false; !finished;) {
      std::deque<v1::JobEvent> batch;
      {
        std::unique_lock<std::mutex> lock(mu);
        cv.wait_for(lock, kRedraw, [&] { return done || !queue.empty(); });
        batch.swap(queue);
        finished = done;
      }
      const Clock::time_point now = Clock::now();
      for (const v1::JobEvent& e : batch) {
        view.apply(e, now);
        ended = ended || e.kind() == v1::EVENT_KIND_JOB_ENDED;
      }
      view.draw(now);
    }
    feeder.join();
  }
  const grpc::Status s = reader->Finish();
  if (ended) return ok_status();
  if (!s.ok()) return rpc_error(s, "WatchJob", client);
  return internal_error(fmt::format("WatchJob: the stream of job {} ended before JOB_ENDED", job));
}

}  // namespace zkpipe::cli
