// params_format.cpp: bellperson's .params, read by layout or whole (streamed), and written
// (zkpipe/filecoin/params_format.h).
#include "zkpipe/filecoin/params_format.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <string_view>

#include "zkpipe/crypto/parallel.h"
#include "zkpipe/crypto/serialize.h"
#include "zkpipe/sdk/output_file.h"

namespace zkpipe::filecoin {
namespace {

using crypto::kG1UncompressedBytes;
using crypto::kG2UncompressedBytes;

constexpr uint64_t kVkFixedBytes = 3 * kG1UncompressedBytes + 3 * kG2UncompressedBytes;
constexpr const char* kNames[5] = {"h", "l", "a", "b_g1", "b_g2"};
constexpr size_t kChunkPoints = 4096;

class File {
 public:
  explicit File(const std::string& path) : path_(path), fd_(::open(path.c_str(), O_RDONLY)) {}
  ~File() {
    if (fd_ >= 0) ::close(fd_);
  }
  File(const File&) = delete;
  File& operator=(const File&) = delete;

  Status open_status() const {
    if (fd_ >= 0) {
      struct stat st {};
      if (::fstat(fd_, &st) == 0 && !S_ISREG(st.st_mode))
        return invalid_argument(path_ + ": not a regular file");
      return ok_status();
    }
    const std::string why = std::strerror(errno);
    return errno == ENOENT ? not_found(path_ + ": " + why) : invalid_argument(path_ + ": " + why);
  }
  uint64_t size() const {
    struct stat st {};
    return ::fstat(fd_, &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
  }
  // Exactly n bytes at `offset`; names `what` and the offset when the file ends first.
  Status read(uint64_t offset, void* out, size_t n, const std::string& what) const {
    auto* p = static_cast<uint8_t*>(out);
    size_t done = 0;
    while (done < n) {
      const ssize_t got = ::pread(fd_, p + done, n - done, static_cast<off_t>(offset + done));
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) return internal_error(path_ + ": reading " + what + ": " + std::strerror(errno));
      if (got == 0) {
        return invalid_argument(path_ + ": truncated: " + what + " at offset " +
                                std::to_string(offset) + " needs " + std::to_string(n) +
                                " bytes, the file ends at " + std::to_string(offset + done));
      }
      done += static_cast<size_t>(got);
    }
    return ok_status();
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int fd_;
};

uint32_t be32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

void put_be32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>(v >> (24 - 8 * i)));
}

std::string at(const std::string& path, uint64_t offset) {
  return path + " (offset " + std::to_string(offset) + ")";
}

// One chunk of points [first, first + n) of `v`, read into `buf` and decoded into out.
template <typename Point>
Status read_chunk(const File& f, const ParamsVector& v, bool checked, uint64_t first, size_t n,
                  std::vector<uint8_t>& buf, Point* out) {
  buf.resize(n * v.point_bytes);
  const uint64_t offset = v.offset + first * v.point_bytes;
  ZKP_RETURN_IF_ERROR(f.read(offset, buf.data(), n * v.point_bytes,
                             std::string(v.name) + " points " + std::to_string(first) + ".." +
                                 std::to_string(first + n - 1)));
  const crypto::DecodeOptions options{checked};
  Status s;
  if constexpr (std::is_same_v<Point, G1Affine>) {
    s = crypto::decode_g1_array(buf.data(), n, v.point_bytes, out + first, options);
  } else {
    s = crypto::decode_g2_array(buf.data(), n, v.point_bytes, out + first, options);
  }
  if (!s.ok()) {
    return s.with_context(f.path() + ": " + v.name + " (points from " + std::to_string(first) +
                          " at offset " + std::to_string(offset) + ")");
  }
  for (size_t i = 0; i < n; ++i) {
    if (out[first + i].infinity) {
      return invalid_argument(at(f.path(), offset + i * v.point_bytes) + ": " + v.name + " point " +
                              std::to_string(first + i) +
                              " is the point at infinity (bellperson's files hold none)");
    }
  }
  return ok_status();
}

// The chunks are read (pread: no shared offset) and decoded on `threads` threads; the error
// reported is the first chunk's in file order, whatever the threads' timing.
template <typename Point>
Status read_points(const File& f, const ParamsVector& v, bool checked, std::span<Point> out,
                   unsigned threads) {
  if (out.size() != v.count) {
    return invalid_argument(f.path() + ": " + v.name + " has " + std::to_string(v.count) +
                            " points; room was made for " + std::to_string(out.size()));
  }
  const size_t chunks = (v.count + kChunkPoints - 1) / kChunkPoints;
  std::mutex mu;
  size_t failed_chunk = chunks;
  Status failed;
  crypto::parallel_for(chunks, threads, [&](size_t c) {
    thread_local std::vector<uint8_t> buf;
    const uint64_t first = uint64_t{c} * kChunkPoints;
    const size_t n = static_cast<size_t>(std::min<uint64_t>(kChunkPoints, v.count - first));
    Status s = read_chunk(f, v, checked, first, n, buf, out.data());
    if (s.ok()) return;
    std::lock_guard<std::mutex> lock(mu);
    if (c < failed_chunk) {
      failed_chunk = c;
      failed = std::move(s);
    }
  });
  return failed_chunk == chunks ? ok_status() : failed;
}

template <typename Point>
Status append_points(std::string& out, const std::vector<Point>& points, const char* name) {
  put_be32(out, static_cast<uint32_t>(points.size()));
  const size_t bytes =
      std::is_same_v<Point, G1Affine> ? kG1UncompressedBytes : kG2UncompressedBytes;
  const size_t base = out.size();
  out.resize(base + points.size() * bytes);
  auto* p = reinterpret_cast<uint8_t*>(out.data() + base);
  for (size_t i = 0; i < points.size(); ++i, p += bytes) {
    if (points[i].infinity) {
      return invalid_argument(std::string("params: ") + name + " point " + std::to_string(i) +
                              " is the point at infinity (bellperson's layout holds none)");
    }
    if constexpr (std::is_same_v<Point, G1Affine>) {
      crypto::encode_g1_uncompressed(points[i], p);
    } else {
      crypto::encode_g2_uncompressed(points[i], p);
    }
  }
  return ok_status();
}

}  // namespace

uint64_t params_file_bytes(size_t ic, size_t h, size_t l, size_t a, size_t b) {
  return kVkFixedBytes + 4 + uint64_t(ic) * kG1UncompressedBytes + 5 * 4 +
         (uint64_t(h) + l + a + b) * kG1UncompressedBytes + uint64_t(b) * kG2UncompressedBytes;
}

Result<ParamsLayout> read_params_layout(const std::string& path) {
  File f(path);
  ZKP_RETURN_IF_ERROR(f.open_status());
  ParamsLayout layout;
  layout.file_bytes = f.size();
  std::vector<uint8_t> head(kVkFixedBytes + 4);
  ZKP_RETURN_IF_ERROR(f.read(0, head.data(), head.size(), "the verifying key"));
  const uint32_t ic = be32(head.data() + kVkFixedBytes);
  const uint64_t vk_bytes = kVkFixedBytes + 4 + uint64_t(ic) * kG1UncompressedBytes;
  if (vk_bytes > layout.file_bytes) {
    return invalid_argument(at(path, kVkFixedBytes) + ": the verifying key's IC count " +
                            std::to_string(ic) + " needs " + std::to_string(vk_bytes) +
                            " bytes; the file has " + std::to_string(layout.file_bytes));
  }
  head.resize(vk_bytes);
  ZKP_RETURN_IF_ERROR(f.read(0, head.data(), head.size(), "the verifying key"));
  Result<VerifyingKey> vk = groth16::decode_verifying_key(head.data(), head.size());
  if (!vk.ok()) return vk.status().with_context(path);
  layout.vk = std::move(vk).value();
  uint64_t offset = vk_bytes;
  for (size_t i = 0; i < 5; ++i) {
    ParamsVector& v = layout.vectors[i];
    v.name = kNames[i];
    v.point_bytes = i == 4 ? kG2UncompressedBytes : kG1UncompressedBytes;
    uint8_t count[4];
    ZKP_RETURN_IF_ERROR(f.read(offset, count, 4, std::string("the count of ") + v.name));
    v.count = be32(count);
    v.offset = offset + 4;
    offset = v.offset + uint64_t(v.count) * v.point_bytes;
    if (offset > layout.file_bytes) {
      return invalid_argument(at(path, v.offset - 4) + ": " + v.name + " has " +
                              std::to_string(v.count) + " points, which end at offset " +
                              std::to_string(offset) + "; the file has " +
                              std::to_string(layout.file_bytes) + " bytes (truncated)");
    }
  }
  if (offset != layout.file_bytes) {
    return invalid_argument(at(path, offset) + ": " + std::to_string(layout.file_bytes - offset) +
                            " bytes after the last vector (b_g2); not a bellperson .params file");
  }
  const ParamsVector &b1 = layout.vectors[3], &b2 = layout.vectors[4];
  if (b1.count != b2.count) {
    return invalid_argument(at(path, b2.offset - 4) + ": b_g2 has " + std::to_string(b2.count) +
                            " points, b_g1 " + std::to_string(b1.count) + " (they are one query)");
  }
  return layout;
}

Result<BellpersonParams> read_params(const std::string& path, bool checked, unsigned threads) {
  ZKP_ASSIGN_OR_RETURN(ParamsLayout layout, read_params_layout(path));
  BellpersonParams p;
  p.vk = std::move(layout.vk);
  p.h.resize(layout.vectors[0].count);
  p.l.resize(layout.vectors[1].count);
  p.a.resize(layout.vectors[2].count);
  p.b_g1.resize(layout.vectors[3].count);
  p.b_g2.resize(layout.vectors[4].count);
  ZKP_RETURN_IF_ERROR(
      read_params_into(path, layout, checked, {p.h, p.l, p.a, p.b_g1, p.b_g2}, threads));
  return p;
}

Status read_params_into(const std::string& path, const ParamsLayout& layout, bool checked,
                        const ParamsTargets& out, unsigned threads) {
  File f(path);
  ZKP_RETURN_IF_ERROR(f.open_status());
  ZKP_RETURN_IF_ERROR(read_points(f, layout.vectors[0], checked, out.h, threads));
  ZKP_RETURN_IF_ERROR(read_points(f, layout.vectors[1], checked, out.l, threads));
  ZKP_RETURN_IF_ERROR(read_points(f, layout.vectors[2], checked, out.a, threads));
  ZKP_RETURN_IF_ERROR(read_points(f, layout.vectors[3], checked, out.b_g1, threads));
  return read_points(f, layout.vectors[4], checked, out.b_g2, threads);
}

Status write_params(const std::string& path, const BellpersonParams& params) {
  const std::vector<uint8_t> vk = groth16::encode_verifying_key(params.vk);
  std::string out(vk.begin(), vk.end());
  out.reserve(params_file_bytes(params.vk.ic.size(), params.h.size(), params.l.size(),
                                params.a.size(), params.b_g1.size()));
  ZKP_RETURN_IF_ERROR(append_points(out, params.h, "h"));
  ZKP_RETURN_IF_ERROR(append_points(out, params.l, "l"));
  ZKP_RETURN_IF_ERROR(append_points(out, params.a, "a"));
  ZKP_RETURN_IF_ERROR(append_points(out, params.b_g1, "b_g1"));
  ZKP_RETURN_IF_ERROR(append_points(out, params.b_g2, "b_g2"));
  return write_output_file(path, out, "params");
}

BellpersonParams params_from_proving_key(const groth16::ProvingKey& pk) {
  BellpersonParams p;
  p.vk = pk.vk;
  p.h.assign(pk.h_query.begin(), pk.h_query.end());
  p.l.assign(pk.l_query.begin(), pk.l_query.end());
  p.a.assign(pk.a_query.begin(), pk.a_query.end());
  p.b_g1.assign(pk.b_g1_query.begin(), pk.b_g1_query.end());
  p.b_g2.assign(pk.b_g2_query.begin(), pk.b_g2_query.end());
  return p;
}

}  // namespace zkpipe::filecoin
