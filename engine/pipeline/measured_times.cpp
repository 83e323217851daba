// Measured per-circuit step times on disk, and the time of a workload from them
// (zkpipe/pipeline/measured_times.h).
#include "zkpipe/pipeline/measured_times.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "zkpipe/sdk/output_file.h"

namespace zkpipe::pipeline {

std::string measured_times_path(const std::string& params_dir, const std::string& circuit_id) {
  return (std::filesystem::path(params_dir) / (circuit_id + ".times")).string();
}

Status write_measured_times(const std::string& path, const MeasuredTimes& t) {
  const nlohmann::json j = {{"circuit", t.circuit_id},
                            {"backend", t.backend},
                            {"devices", t.devices},
                            {"samples", t.samples},
                            {"synthesis_ms", t.synthesis_ms},
                            {"prove_start_ms", t.prove_start_ms},
                            {"prove_finish_ms", t.prove_finish_ms}};
  return write_output_file(path, j.dump(2) + "\n", "the measured times");
}

Result<MeasuredTimes> read_measured_times(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return not_found(path + ": no measured times");
  std::stringstream text;
  text << in.rdbuf();
  const nlohmann::json j = nlohmann::json::parse(text.str(), nullptr, false);
  if (j.is_discarded() || !j.is_object()) return invalid_argument(path + ": not a JSON object");
  MeasuredTimes t;
  for (const char* key : {"circuit", "backend", "devices"}) {
    if (!j.contains(key) || !j.at(key).is_string()) {
      return invalid_argument(path + ": " + key + ": missing or not a string");
    }
  }
  t.circuit_id = j.at("circuit").get<std::string>();
  t.backend = j.at("backend").get<std::string>();
  t.devices = j.at("devices").get<std::string>();
  if (!j.contains("samples") || !j.at("samples").is_number_unsigned()) {
    return invalid_argument(path + ": samples: missing or not a count");
  }
  t.samples = j.at("samples").get<uint64_t>();
  struct Field {
    const char* key;
    double* out;
  };
  for (const Field& f :
       {Field{"synthesis_ms", &t.synthesis_ms}, Field{"prove_start_ms", &t.prove_start_ms},
        Field{"prove_finish_ms", &t.prove_finish_ms}}) {
    if (!j.contains(f.key) || !j.at(f.key).is_number() || j.at(f.key).get<double>() < 0) {
      return invalid_argument(path + ": " + f.key + ": missing or not a duration in ms");
    }
    *f.out = j.at(f.key).get<double>();
  }
  return t;
}

TimePrediction predict_time(const MeasuredTimes& t, uint64_t jobs, uint64_t partitions,
                            uint64_t synthesis_workers, uint64_t compute_workers,
                            uint64_t finalizers) {
  TimePrediction p;
  const double s = t.synthesis_ms / 1e3, g = t.prove_start_ms / 1e3, f = t.prove_finish_ms / 1e3;
  p.partition_s = s + g + f;
  struct Stage {
    const char* name;
    double seconds;
    uint64_t workers;
  };
  const Stage stages[] = {{"synthesis", s, synthesis_workers},
                          {"prove_start", g, compute_workers},
                          {"prove_finish", f, finalizers}};
  double slowest = 0;  // seconds a partition per stage worker pool
  for (const Stage& st : stages) {
    const double each = st.seconds / static_cast<double>(std::max<uint64_t>(st.workers, 1));
    if (each > slowest || p.bottleneck.empty()) {
      slowest = each;
      p.bottleneck = st.name;
    }
  }
  p.rate = slowest > 0 ? 1 / slowest : 0;
  const auto time_of = [&](uint64_t n) {
    return n == 0 ? 0.0 : p.partition_s + static_cast<double>(n - 1) * slowest;
  };
  p.first_job_s = time_of(partitions);
  p.workload_s = time_of(jobs * partitions);
  return p;
}

}  // namespace zkpipe::pipeline
