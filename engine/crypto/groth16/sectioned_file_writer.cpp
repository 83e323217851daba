// engine/crypto/groth16/sectioned_file_writer.cpp: the streaming writer of the sectioned
// container (layout in zkpipe/groth16/sectioned_file.h): payloads go to a uniquely named temporary
// file beside the destination (zkpipe/sdk/output_file.h: only a regular file or a missing path is
// replaced) behind a reserved header, each hashed as it streams (SHA-256, zkpipe/sdk/sha256.h);
// finish() writes the table and header checksum, fsyncs and renames. Thread-safety: one thread per
// writer.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "le_bytes.h"
#include "zkpipe/groth16/sectioned_file.h"
#include "zkpipe/sdk/output_file.h"

namespace zkpipe::groth16 {
namespace {

using namespace detail;  // le_bytes.h

uint64_t align_up(uint64_t v) {
  return (v + kSectionAlignment - 1) / kSectionAlignment * kSectionAlignment;
}

std::string errno_text() {
  return std::strerror(errno);
}

}  // namespace

// ---- writer -----------------------------------------------------------------------------------

struct SectionedFileWriter::State {
  explicit State(TempOutput t) : out(std::move(t)), fd(out.fd()), tmp_path(out.temp_path()) {}
  TempOutput out;  // removed unless committed
  int fd;
  std::string path, tmp_path;
  SectionedFormat format;
  uint32_t count = 0;
  uint64_t pos = 0;  // the file offset of the next byte appended
  std::vector<SectionEntry> sections;
  bool in_section = false;
  bool finished = false;
  Sha256 hash;
  std::vector<uint8_t> buffer;

  Status flush() {
    size_t done = 0;
    while (done < buffer.size()) {
      const ssize_t n = ::write(fd, buffer.data() + done, buffer.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return internal_error(cat(tmp_path, ": write failed: ", errno_text()));
      done += static_cast<size_t>(n);
    }
    buffer.clear();
    return ok_status();
  }
  Status put(const void* data, size_t len) {
    const auto* p = static_cast<const uint8_t*>(data);
    constexpr size_t kBufferBytes = size_t{1} << 20;
    while (len > 0) {
      const size_t take = std::min(len, kBufferBytes - buffer.size());
      buffer.insert(buffer.end(), p, p + take);
      p += take;
      len -= take;
      pos += take;
      if (buffer.size() == kBufferBytes) ZKP_RETURN_IF_ERROR(flush());
    }
    return ok_status();
  }
};

SectionedFileWriter::SectionedFileWriter(std::unique_ptr<State> state) : state_(std::move(state)) {}
SectionedFileWriter::SectionedFileWriter(SectionedFileWriter&&) noexcept = default;
SectionedFileWriter& SectionedFileWriter::operator=(SectionedFileWriter&&) noexcept = default;

SectionedFileWriter::~SectionedFileWriter() = default;  // the TempOutput removes an unfinished file

Result<SectionedFileWriter> SectionedFileWriter::create(const std::string& path,
                                                        const SectionedFormat& format,
                                                        uint32_t section_count) {
  if (format.magic.size() != 8) {
    return invalid_argument(cat(path, ": magic '", format.magic, "' is not 8 bytes"));
  }
  ZKP_ASSIGN_OR_RETURN(TempOutput out, TempOutput::create(path));
  auto st = std::make_unique<State>(std::move(out));
  st->path = path;
  st->format = format;
  st->count = section_count;
  // Reserve the header, table and header checksum; they are written by finish().
  const uint64_t header = kFileHeaderBytes + kSectionEntryBytes * section_count + kSha256Bytes;
  std::vector<uint8_t> zeros(header, 0);
  SectionedFileWriter w(std::move(st));
  ZKP_RETURN_IF_ERROR(w.state_->put(zeros.data(), zeros.size()));
  return w;
}

Status SectionedFileWriter::begin_section(uint32_t type) {
  State& st = *state_;
  if (st.in_section || st.finished) {
    return failed_precondition(st.path + ": begin_section while a section is open");
  }
  if (st.sections.size() >= st.count) {
    return failed_precondition(cat(st.path, ": more than the ", st.count, " sections announced"));
  }
  for (const auto& s : st.sections) {
    if (s.type == type) {
      return failed_precondition(
          cat(st.path, ": section '", st.format.section_name(type), "' written twice"));
    }
  }
  const std::vector<uint8_t> pad(align_up(st.pos) - st.pos, 0);
  ZKP_RETURN_IF_ERROR(st.put(pad.data(), pad.size()));
  SectionEntry e;
  e.type = type;
  e.offset = st.pos;
  st.sections.push_back(e);
  st.in_section = true;
  return ok_status();
}

Status SectionedFileWriter::append(const void* data, size_t len) {
  State& st = *state_;
  if (!st.in_section) return failed_precondition(st.path + ": append outside a section");
  st.hash.update(data, len);
  return st.put(data, len);
}

Status SectionedFileWriter::end_section() {
  State& st = *state_;
  if (!st.in_section) return failed_precondition(st.path + ": end_section without a section");
  SectionEntry& e = st.sections.back();
  e.length = st.pos - e.offset;
  e.sha256 = st.hash.finish();
  st.in_section = false;
  return ok_status();
}

Status SectionedFileWriter::write_section(uint32_t type, std::span<const uint8_t> payload) {
  ZKP_RETURN_IF_ERROR(begin_section(type));
  ZKP_RETURN_IF_ERROR(append(payload.data(), payload.size()));
  return end_section();
}

Status SectionedFileWriter::finish() {
  State& st = *state_;
  if (st.in_section || st.sections.size() != st.count || st.finished) {
    return failed_precondition(cat(st.path, ": finish after ", st.sections.size(), " of ", st.count,
                                   " sections", st.in_section ? " (one still open)" : ""));
  }
  ZKP_RETURN_IF_ERROR(st.flush());
  const uint64_t table_end = kFileHeaderBytes + kSectionEntryBytes * st.count;
  std::vector<uint8_t> header(table_end + kSha256Bytes, 0);
  std::memcpy(header.data(), st.format.magic.data(), 8);
  store_u32(header.data() + 8, st.format.version);
  store_u32(header.data() + 12, st.count);
  for (size_t i = 0; i < st.sections.size(); ++i) {
    uint8_t* e = header.data() + kFileHeaderBytes + kSectionEntryBytes * i;
    store_u32(e, st.sections[i].type);
    store_u64(e + 8, st.sections[i].offset);
    store_u64(e + 16, st.sections[i].length);
    std::memcpy(e + 24, st.sections[i].sha256.data(), kSha256Bytes);
  }
  const Sha256Digest sum = sha256(std::span<const uint8_t>(header.data(), table_end));
  std::memcpy(header.data() + table_end, sum.data(), kSha256Bytes);
  size_t done = 0;
  while (done < header.size()) {
    const ssize_t n =
        ::pwrite(st.fd, header.data() + done, header.size() - done, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return internal_error(cat(st.tmp_path, ": write failed: ", errno_text()));
    done += static_cast<size_t>(n);
  }
  ZKP_RETURN_IF_ERROR(st.out.commit());  // fsync, close, rename over the destination
  st.fd = -1;
  st.finished = true;
  return ok_status();
}

}  // namespace zkpipe::groth16
