// The plugins' shared entry points: parse_request (binary and JSON, checked before any proving),
// sample_request (deterministic, valid, the preset's partitions) and the command line
// (`vanilla` from sealed-sector files, its refusals with exit code 2 and a message naming the
// file, option or sector).
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <catch2/catch.hpp>

#include "fixtures.h"
#include "post_plugin.h"
#include "zkpipe/sector/sector_file.h"

namespace post_test {
namespace {

namespace fs = std::filesystem;

// A fresh directory with the five tiny sectors written as s0.sector .. s4.sector.
struct SectorDir {
  fs::path dir;
  SectorDir() {
    dir = fs::temp_directory_path() / ("post_test_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    for (size_t i = 0; i < tiny_sectors().size(); ++i) {
      REQUIRE(porep::write_sector(file(i), tiny_sectors()[i]).ok());
    }
  }
  ~SectorDir() { fs::remove_all(dir); }
  std::string file(size_t i) const {
    return (dir / ("s" + std::to_string(i) + ".sector")).string();
  }
  std::string path(const std::string& name) const { return (dir / name).string(); }
};

std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Runs the command line with stderr captured: {exit code, what it wrote to stderr}.
std::pair<int, std::string> run(Kind kind, std::vector<std::string> args, const SectorDir& d) {
  args.insert(args.begin(), kind_name(kind));
  const std::string err_path = d.path("stderr.txt");
  std::fflush(stderr);
  const int saved = ::dup(2);
  FILE* f = std::fopen(err_path.c_str(), "w");
  ::dup2(::fileno(f), 2);
  const int rc = run_command(kind, args);
  std::fflush(stderr);
  ::dup2(saved, 2);
  ::close(saved);
  std::fclose(f);
  const std::vector<uint8_t> err = read_bytes(err_path);
  return {rc, std::string(err.begin(), err.end())};
}

const std::string kRandomness = std::string(62, '0') + "2a";

TEST_CASE("PoSt command: vanilla makes a checked request from sealed-sector files", "[post]") {
  SectorDir d;
  const std::string out = d.path("w.bin");
  auto [rc, err] = run(Kind::kWindow,
                       {"vanilla", "--sector", d.file(0) + ":100", "--sector", d.file(1) + ":101",
                        "--sector", d.file(2) + ":102", "--randomness", kRandomness, "--out", out},
                       d);
  REQUIRE(err == "");
  REQUIRE(rc == 0);
  Seed r{};
  r[31] = 0x2a;
  const std::vector<uint8_t> bytes = read_bytes(out);
  auto v = decode_vanilla(Kind::kWindow, bytes, out);
  REQUIRE(v.ok());
  REQUIRE(check_vanilla(*v, out).ok());
  CHECK(v->randomness == r);
  CHECK(v->shape.name == "tiny");
  CHECK(encode_vanilla(make_vanilla_proofs(v->shape, r, inputs(3)).value()) == bytes);
  auto job = parse_request(Kind::kWindow, bytes, out);
  REQUIRE(job.ok());
  CHECK((*job)->partitions() == 2);
  CHECK((*job)->circuit_id() == "window_post-v1-n8-s2-c2");

  // WinningPoSt, JSON: the set of five, the drawn one proven.
  const std::string json = d.path("win.json");
  std::vector<std::string> args = {"vanilla", "--json", "--out", json, "--randomness", kRandomness};
  for (size_t i = 0; i < 5; ++i) {
    args.insert(args.end(), {"--sector", d.file(i) + ":" + std::to_string(100 + i)});
  }
  std::tie(rc, err) = run(Kind::kWinning, args, d);
  REQUIRE(err == "");
  REQUIRE(rc == 0);
  const std::vector<uint8_t> text = read_bytes(json);
  REQUIRE(text.at(0) == '{');
  auto win = parse_request(Kind::kWinning, text, json);
  REQUIRE(win.ok());
  CHECK((*win)->partitions() == 1);
  CHECK((*win)->public_inputs(0).size() == 5);
  // The window request is not a winning request, and a cut one is refused at parse.
  CHECK_THAT(parse_request(Kind::kWinning, bytes, "w.bin").status().message(),
             Catch::Contains("proof type 3 is not winning_post (4)"));
  CHECK_THAT(parse_request(Kind::kWindow, std::span<const uint8_t>(bytes).first(100), "w.bin")
                 .status()
                 .message(),
             Catch::StartsWith("w.bin: byte offset"));
}

TEST_CASE("PoSt command: bad usage and bad sectors exit 2, naming what is wrong", "[post]") {
  SectorDir d;
  const std::string out = d.path("v.bin");
  const std::string s0 = d.file(0) + ":100";
  auto expect = [&](Kind kind, std::vector<std::string> args, const std::string& message) {
    INFO(message);
    auto [rc, err] = run(kind, args, d);
    CHECK(rc == 2);
    CHECK_THAT(err, Catch::Contains(message));
    CHECK_FALSE(fs::exists(out));
  };
  const std::string r = kRandomness;
  expect(Kind::kWindow, {"vanilla", "--sector", s0, "--out", out}, "--randomness HEX is required");
  expect(Kind::kWindow, {"vanilla", "--sector", s0, "--randomness", "12", "--out", out},
         "--randomness: must be 64 hex digits");
  expect(Kind::kWindow, {"vanilla", "--sector", d.file(0) + ":x1", "--randomness", r, "--out", out},
         "the id: 'x1' is not a number");
  expect(Kind::kWindow, {"vanilla", "--sector", "s.sector", "--randomness", r, "--out", out},
         "'s.sector' is not FILE:SECTOR_ID");
  expect(Kind::kWindow, {"vanilla", "--randomness", r, "--out", out},
         "no --sector FILE:SECTOR_ID given");
  expect(Kind::kWindow, {"vanilla", "--sector", s0, "--randomness", r, "--out", out, "--x"},
         "unknown argument '--x'");
  expect(Kind::kWindow, {"frobnicate"}, "unknown command 'frobnicate'");
  expect(
      Kind::kWindow,
      {"vanilla", "--sector", s0, "--sector", d.file(1) + ":100", "--randomness", r, "--out", out},
      "sector 100 is listed twice (entries 0 and 1)");
  expect(Kind::kWinning,
         {"vanilla", "--sector", s0, "--randomness", r, "--out", out, "--shape", "2KiB"},
         d.file(0) + " (sector 100): the sector has 8 nodes; shape '2KiB' proves sectors of 64");
  expect(Kind::kWinning,
         {"vanilla", "--sector", s0, "--randomness", r, "--out", out, "--shape", "huge"},
         "unknown winning_post shape 'huge'");
  expect(Kind::kWindow,
         {"vanilla", "--sector", d.path("missing.sector") + ":1", "--randomness", r, "--out", out},
         "missing.sector");
  // A damaged sector file: the sector cache's checksum names it.
  std::vector<uint8_t> bytes = read_bytes(d.file(1));
  bytes[bytes.size() - 40] ^= 1;
  std::ofstream(d.path("bad.sector"), std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
  expect(Kind::kWindow,
         {"vanilla", "--sector", d.path("bad.sector") + ":1", "--randomness", r, "--out", out},
         "bad.sector");
  auto [rc, help] = run(Kind::kWindow, {"help"}, d);
  CHECK(rc == 0);
}

TEST_CASE("PoSt sample requests: deterministic, valid, the preset's partitions", "[post]") {
  for (Kind kind : {Kind::kWindow, Kind::kWinning}) {
    for (const char* name : {"tiny", "2KiB"}) {
      INFO(kind_name(kind) << " " << name);
      const Preset p = find_preset(kind, name).value();
      const zkp_preset preset{name, "", p.partitions(), 0};
      auto a = sample_request(kind, preset, 7);
      REQUIRE(a.ok());
      CHECK(sample_request(kind, preset, 7).value() == *a);
      CHECK(sample_request(kind, preset, 8).value() != *a);
      auto job = parse_request(kind, *a, "sample");
      REQUIRE(job.ok());
      CHECK((*job)->partitions() == p.partitions());
      CHECK(plugins::self_test_job(**job).ok());
    }
  }
  const zkp_preset nope{"nope", "", 1, 0};
  CHECK_THAT(sample_request(Kind::kWindow, nope, 1).status().message(),
             Catch::Contains("unknown window_post shape 'nope'"));
}

}  // namespace
}  // namespace post_test
