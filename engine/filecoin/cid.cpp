// Commitments inside Filecoin's CIDs (zkpipe/filecoin/cid.h).
#include "zkpipe/filecoin/cid.h"

#include <cstring>
#include <vector>

namespace zkpipe::filecoin {
namespace {

std::string fmt_hex(uint64_t v) {
  static const char* d = "0123456789abcdef";
  std::string s;
  do {
    s.insert(s.begin(), d[v & 15]);
    v >>= 4;
  } while (v);
  return s;
}

Result<std::vector<uint8_t>> base32(std::string_view s, const std::string& what) {
  static const char* kAlphabet = "abcdefghijklmnopqrstuvwxyz234567";
  std::vector<uint8_t> out;
  uint32_t buffer = 0, bits = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const char* at = s[i] == '\0' ? nullptr : std::strchr(kAlphabet, s[i]);
    if (at == nullptr) {
      return invalid_argument(what + ": character " + std::to_string(i + 1) +
                              " is not lower-case base32");
    }
    buffer = (buffer << 5) | static_cast<uint32_t>(at - kAlphabet);
    bits += 5;
    if (bits >= 8) {
      out.push_back(static_cast<uint8_t>(buffer >> (bits - 8)));
      bits -= 8;
    }
  }
  return out;
}

Result<uint64_t> uvarint(const std::vector<uint8_t>& b, size_t& at, const std::string& what) {
  uint64_t v = 0;
  for (int shift = 0; shift < 63 && at < b.size(); shift += 7) {
    const uint8_t x = b[at++];
    v |= uint64_t{x & 0x7fu} << shift;
    if (!(x & 0x80)) return v;
  }
  return invalid_argument(what + ": a truncated varint");
}

Result<Domain> commitment(std::string_view cid, uint64_t codec, uint64_t hash, const char* kind,
                          const std::string& what) {
  if (cid.empty() || cid[0] != 'b') {
    return invalid_argument(what + ": not a base32 CID (a Filecoin CID starts with 'b')");
  }
  ZKP_ASSIGN_OR_RETURN(std::vector<uint8_t> b, base32(cid.substr(1), what));
  size_t at = 0;
  ZKP_ASSIGN_OR_RETURN(uint64_t version, uvarint(b, at, what));
  ZKP_ASSIGN_OR_RETURN(uint64_t got_codec, uvarint(b, at, what));
  ZKP_ASSIGN_OR_RETURN(uint64_t got_hash, uvarint(b, at, what));
  ZKP_ASSIGN_OR_RETURN(uint64_t length, uvarint(b, at, what));
  if (version != 1 || got_codec != codec || got_hash != hash) {
    return invalid_argument(what + ": not a " + kind + " CID (version " + std::to_string(version) +
                            ", codec 0x" + fmt_hex(got_codec) + ", multihash 0x" +
                            fmt_hex(got_hash) + ")");
  }
  if (length != 32 || b.size() - at != 32) {
    return invalid_argument(what + ": the commitment is not 32 bytes");
  }
  Domain d;
  std::copy(b.begin() + static_cast<std::ptrdiff_t>(at), b.end(), d.begin());
  ZKP_RETURN_IF_ERROR(fr_from_domain(d, what).status());
  return d;
}

}  // namespace

Result<Domain> comm_r_from_cid(std::string_view cid, const std::string& what) {
  return commitment(cid, 0xf102, 0xb401, "sealed-sector (comm_r)", what);
}

Result<Domain> comm_d_from_cid(std::string_view cid, const std::string& what) {
  return commitment(cid, 0xf101, 0x1012, "piece (comm_d)", what);
}

}  // namespace zkpipe::filecoin
