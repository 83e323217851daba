// filecoin_params.cpp: Filecoin's .params files in the params cache: where they are, their digest
// verdict, the development setup's labeled files, the count check against the circuit and the
// decode into backend memory (filecoin_params.h).
#include "filecoin_params.h"

#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <fmt/core.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "zkpipe/filecoin/circuit_params.h"
#include "zkpipe/groth16/setup.h"
#include "zkpipe/sdk/output_file.h"
#include "zkpipe/sdk/units.h"

namespace zkpipe::pipeline {
namespace {

namespace fs = std::filesystem;
using groth16::G1Affine;
using groth16::G2Affine;

constexpr const char* kStampHeader = "zkpipe filecoin params verdict 1\n";
constexpr const char* kLabelHeader =
    "zkpipe development setup: NOT Filecoin's parameters; a Filecoin node rejects every proof made "
    "with them\n";

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// The file's identity as it is now; "" when it cannot be read.
std::string file_identity(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return "";
  return fmt::format(
      "dev {} ino {} size {}\nmtime {}.{:09} ctime {}.{:09}\n", static_cast<uint64_t>(st.st_dev),
      static_cast<uint64_t>(st.st_ino), static_cast<uint64_t>(st.st_size),
      static_cast<int64_t>(st.st_mtim.tv_sec), static_cast<int64_t>(st.st_mtim.tv_nsec),
      static_cast<int64_t>(st.st_ctim.tv_sec), static_cast<int64_t>(st.st_ctim.tv_nsec));
}

std::string verdict_text(const std::string& identity, ParamsOrigin origin,
                         const std::string& digest) {
  return fmt::format("{}{}origin {}\ndigest {}\n", kStampHeader, identity,
                     origin == ParamsOrigin::kFilecoin ? "filecoin" : "development", digest);
}

// The digest a development label names; "" when there is no label (or none parseable).
std::string labeled_digest(const std::string& label_path) {
  std::istringstream in(read_text(label_path));
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("digest ", 0) == 0) return line.substr(7);
  }
  return "";
}

}  // namespace

std::optional<FilecoinParams> filecoin_params(const ParamsConfig& config,
                                              const std::string& circuit_id) {
  if (config.filecoin_dir.empty() || !filecoin::is_filecoin_circuit(circuit_id)) {
    return std::nullopt;
  }
  Result<filecoin::ParamFile> file = filecoin::circuit_param_file(circuit_id);
  if (!file.ok()) return std::nullopt;  // a "filecoin-" id of no Filecoin circuit: zkpipe's own
  const std::string stem = filecoin::param_file_stem(*file);
  FilecoinParams f;
  f.file = *file;
  f.params = (fs::path(config.filecoin_dir) / (stem + ".params")).string();
  f.vk = (fs::path(config.filecoin_dir) / (stem + ".vk")).string();
  f.development = f.params + ".development";
  f.checked = (fs::path(config.dir) / (stem + ".checked")).string();
  f.lock = (fs::path(config.dir) / stem).string();
  f.csr = (fs::path(config.dir) / (circuit_id + ".csr")).string();
  return f;
}

Result<ParamsOrigin> check_filecoin_params(const FilecoinParams& f) {
  const std::string identity = file_identity(f.params);
  if (identity.empty()) {
    return not_found(f.params + ": not a readable file (Filecoin's " + f.file.name + ")");
  }
  const std::string stamp = read_text(f.checked);
  for (ParamsOrigin o : {ParamsOrigin::kFilecoin, ParamsOrigin::kDevelopment}) {
    const std::string digest =
        o == ParamsOrigin::kFilecoin ? f.file.digest : labeled_digest(f.development);
    if (!digest.empty() && stamp == verdict_text(identity, o, digest)) return o;
  }
  spdlog::info("params: checking the BLAKE2b digest of {} (once; the verdict is kept in {})",
               f.params, f.checked);
  uint64_t next_log = uint64_t{4} << 30;
  ZKP_ASSIGN_OR_RETURN(const std::string digest,
                       filecoin::param_file_digest(f.params, [&](uint64_t done, uint64_t total) {
                         if (done >= next_log) {
                           spdlog::info("params: {} of {} of {} digested", format_bytes(done),
                                        format_bytes(total), f.file.name);
                           next_log += uint64_t{4} << 30;
                         }
                       }));
  ParamsOrigin origin = ParamsOrigin::kFilecoin;
  if (digest != f.file.digest) {
    const std::string labeled = labeled_digest(f.development);
    if (f.file.digest.empty() && labeled != digest) {
      return failed_precondition(fmt::format(
          "{}: Filecoin publishes no parameters for {} (parameters.json has no such file), and "
          "this is not the development file its label names: remove it (with params.missing: "
          "setup a development file is made)",
          f.params, f.file.name));
    }
    if (labeled.empty() || labeled != digest) {
      return failed_precondition(fmt::format(
          "{}: its digest is {}, parameters.json says {} for {}{}: a corrupt or partial copy "
          "(fetch it again, e.g. `lotus fetch-params`, or remove it)",
          f.params, digest, f.file.digest, f.file.name,
          labeled.empty() ? "" : " (and it is not the development file its label names)"));
    }
    origin = ParamsOrigin::kDevelopment;
  }
  const Status s = write_output_file(f.checked, verdict_text(identity, origin, digest),
                                     "params: the digest verdict");
  if (!s.ok()) spdlog::warn("params: {} (the next load digests the file again)", s.to_string());
  return origin;
}

void drop_filecoin_verdict(const FilecoinParams& f) {
  std::error_code ec;
  fs::remove(f.checked, ec);
}

Status make_development_filecoin_params(const FilecoinParams& f, const groth16::R1cs& r1cs,
                                        uint64_t seed, unsigned threads,
                                        const std::atomic<bool>* stop) {
  std::error_code ec;
  fs::create_directories(fs::path(f.params).parent_path(), ec);
  if (ec) {
    return unavailable("params.filecoin_dir: cannot create " +
                       fs::path(f.params).parent_path().string() + ": " + ec.message());
  }
  // A directory that holds Filecoin's own files is one Lotus or curio may use, and they would
  // take a development file under a registered name for Filecoin's (they do not read labels).
  const fs::path dir = fs::path(f.params).parent_path();
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("v28-", 0) == 0 && e.path().extension() == ".params" &&
        !fs::exists(e.path().string() + ".development")) {
      return failed_precondition(fmt::format(
          "params: {} is missing, and the development setup does not write into {}: it holds "
          "Filecoin's own files ({}), which Lotus and curio may read too; fetch Filecoin's file, "
          "or point params.filecoin_dir at a directory of development files",
          f.params, dir.string(), name));
    }
  }
  spdlog::warn("params: making {} by the {} (labeled {}: NOT Filecoin's parameters)", f.params,
               groth16::kNotACeremony, f.development);
  groth16::SetupOptions so;
  so.threads = threads;
  so.stop = stop;
  ZKP_ASSIGN_OR_RETURN(const groth16::ProvingKey pk,
                       groth16::setup(r1cs, groth16::ToxicWaste::from_seed(seed), so));
  ZKP_RETURN_IF_ERROR(filecoin::write_params(f.params, filecoin::params_from_proving_key(pk)));
  const std::vector<uint8_t> vk = groth16::encode_verifying_key(pk.vk);
  ZKP_RETURN_IF_ERROR(
      write_output_file(f.vk, std::string_view(reinterpret_cast<const char*>(vk.data()), vk.size()),
                        "params: the verifying key"));
  ZKP_ASSIGN_OR_RETURN(const std::string digest, filecoin::param_file_digest(f.params));
  return write_output_file(
      f.development,
      fmt::format("{}file {}\nseed {}\ndigest {}\n", kLabelHeader, f.file.name, seed, digest),
      "params: the development label");
}

Result<KeyDensities> check_filecoin_counts(const FilecoinParams& f,
                                           const filecoin::ParamsLayout& layout,
                                           const groth16::R1cs& r1cs) {
  KeyDensities d{groth16::a_density(r1cs), groth16::b_density(r1cs)};
  const uint64_t a = d.a.count(), b = d.b.count();
  struct Count {
    const char* what;
    uint64_t file, circuit;
    const char* unit;
  };
  const Count counts[] = {
      {"verifying key IC", layout.vk.ic.size(), r1cs.num_inputs, "public inputs with one"},
      {"l", layout.vectors[1].count, r1cs.num_aux, "private wires"},
      {"h", layout.vectors[0].count + uint64_t{1}, r1cs.domain_size(), "domain size (h + 1)"},
      {"a", layout.vectors[2].count, a, "wires in A"},
      {"b_g1", layout.vectors[3].count, b, "wires in B"}};
  for (const Count& c : counts) {
    if (c.file != c.circuit) {
      return failed_precondition(
          fmt::format("{}: its {} count is {}, the circuit's {} {} (not this circuit's parameters)",
                      f.params, c.what, c.file, c.unit, c.circuit));
    }
  }
  return d;
}

groth16::ProverShape filecoin_prover_shape(const filecoin::ParamsLayout& layout) {
  const auto& v = layout.vectors;
  return {uint64_t{v[0].count} + 1, v[0].count, v[1].count, v[2].count, v[3].count};
}

uint64_t filecoin_query_bytes(const filecoin::ParamsLayout& layout) {
  const auto& v = layout.vectors;
  return (uint64_t{v[0].count} + v[1].count + v[2].count + v[3].count) * sizeof(G1Affine) +
         uint64_t{v[4].count} * sizeof(G2Affine);
}

Result<groth16::ProvingKey> read_filecoin_key(const FilecoinParams& f,
                                              const filecoin::ParamsLayout& layout,
                                              const groth16::R1cs& r1cs, KeyDensities densities,
                                              Buffer buffer, unsigned threads) {
  if (buffer.bytes() < filecoin_query_bytes(layout)) {
    return internal_error(f.params + ": the buffer is smaller than the key's points");
  }
  const auto& v = layout.vectors;
  auto* g1 = static_cast<G1Affine*>(buffer.host());
  std::span<G1Affine> h(g1, v[0].count), l(h.data() + h.size(), v[1].count),
      a(l.data() + l.size(), v[2].count), b1(a.data() + a.size(), v[3].count);
  std::span<G2Affine> b2(reinterpret_cast<G2Affine*>(b1.data() + b1.size()), v[4].count);
  // The digest vouches for the points: decoded without the subgroup checks (still on the curve,
  // canonical and not at infinity).
  ZKP_RETURN_IF_ERROR(
      filecoin::read_params_into(f.params, layout, false, {h, l, a, b1, b2}, threads));
  groth16::ProvingKey pk;
  pk.vk = layout.vk;
  pk.num_inputs = r1cs.num_inputs;
  pk.num_aux = r1cs.num_aux;
  pk.domain_size = r1cs.domain_size();
  pk.a_density = std::move(densities.a);
  pk.b_density = std::move(densities.b);
  pk.h_query = h;
  pk.l_query = l;
  pk.a_query = a;
  pk.b_g1_query = b1;
  pk.b_g2_query = b2;
  pk.storage = std::make_shared<Buffer>(std::move(buffer));
  ZKP_RETURN_IF_ERROR(pk.check_shape(f.params));
  ZKP_RETURN_IF_ERROR(groth16::check_key_points(pk.vk, f.params, true));
  return pk;
}

}  // namespace zkpipe::pipeline
