// sdr_graph.cpp: the SDR graph's DRG (ChaCha8 bucket sampling) and expander (Feistel) parents,
// and the parent cache's name and digest (zkpipe/filecoin/sdr_graph.h).
#include "zkpipe/filecoin/sdr_graph.h"

#include <openssl/evp.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "zkpipe/crypto/parallel.h"

namespace zkpipe::filecoin {
namespace {

// ChaCha with 8 rounds as rand_chacha 0.3's ChaCha8Rng runs it: the 32-byte seed is the key, a
// 64-bit block counter from 0 in words 12-13, a zero stream id in words 14-15; u64s are read from
// the keystream as consecutive little-endian pairs of words.
class ChaCha8 {
 public:
  explicit ChaCha8(const uint8_t key[32]) {
    for (int i = 0; i < 8; ++i) std::memcpy(&key_[i], key + 4 * i, 4);  // little-endian host
  }
  uint64_t next_u64() {
    if (at_ + 2 > 16) refill();
    const uint64_t lo = block_[at_], hi = block_[at_ + 1];
    at_ += 2;
    return lo | (hi << 32);
  }

 private:
  static uint32_t rotl(uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }
  static void quarter(uint32_t* x, int a, int b, int c, int d) {
    x[a] += x[b], x[d] = rotl(x[d] ^ x[a], 16);
    x[c] += x[d], x[b] = rotl(x[b] ^ x[c], 12);
    x[a] += x[b], x[d] = rotl(x[d] ^ x[a], 8);
    x[c] += x[d], x[b] = rotl(x[b] ^ x[c], 7);
  }
  void refill() {
    uint32_t s[16] = {0x61707865, 0x3320646e, 0x79622d32, 0x6b206574};
    for (int i = 0; i < 8; ++i) s[4 + i] = key_[i];
    s[12] = static_cast<uint32_t>(counter_);
    s[13] = static_cast<uint32_t>(counter_ >> 32);
    s[14] = s[15] = 0;
    uint32_t x[16];
    std::memcpy(x, s, sizeof x);
    for (int r = 0; r < 4; ++r) {
      quarter(x, 0, 4, 8, 12), quarter(x, 1, 5, 9, 13), quarter(x, 2, 6, 10, 14);
      quarter(x, 3, 7, 11, 15), quarter(x, 0, 5, 10, 15), quarter(x, 1, 6, 11, 12);
      quarter(x, 2, 7, 8, 13), quarter(x, 3, 4, 9, 14);
    }
    for (int i = 0; i < 16; ++i) block_[i] = x[i] + s[i];
    ++counter_;
    at_ = 0;
  }

  uint32_t key_[8];
  uint32_t block_[16];
  uint64_t counter_ = 0;
  int at_ = 16;
};

static_assert(std::endian::native == std::endian::little, "the graph code reads LE words");

std::array<uint8_t, 32> sha256_tagged(const char* tag, const PorepId& porep_id) {
  std::vector<uint8_t> in(tag, tag + std::strlen(tag));
  in.insert(in.end(), porep_id.begin(), porep_id.end());
  return sha256(in);
}

// BLAKE2b-512 with one fetched digest and one context per thread (the Feistel round function
// runs some 24 times a node).
class Blake2bRound {
 public:
  Blake2bRound() : md_(EVP_MD_fetch(nullptr, "BLAKE2B-512", nullptr)), ctx_(EVP_MD_CTX_new()) {
    if (!md_ || !ctx_) throw std::runtime_error("OpenSSL: BLAKE2b-512 is not available");
  }
  ~Blake2bRound() {
    EVP_MD_CTX_free(ctx_);
    EVP_MD_free(md_);
  }
  uint64_t first_u64_be(uint64_t right, uint64_t key) {
    uint8_t in[16], out[64];
    for (int i = 0; i < 8; ++i) {
      in[i] = static_cast<uint8_t>(right >> (56 - 8 * i));
      in[8 + i] = static_cast<uint8_t>(key >> (56 - 8 * i));
    }
    unsigned len = 0;
    if (EVP_DigestInit_ex2(ctx_, md_, nullptr) != 1 || EVP_DigestUpdate(ctx_, in, 16) != 1 ||
        EVP_DigestFinal_ex(ctx_, out, &len) != 1)
      throw std::runtime_error("OpenSSL BLAKE2b-512 failed");
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v = (v << 8) | out[i];
    return v;
  }

 private:
  EVP_MD* md_;
  EVP_MD_CTX* ctx_;
};

Blake2bRound& round_function() {
  thread_local Blake2bRound f;
  return f;
}

}  // namespace

SdrGraph::SdrGraph(uint64_t nodes, const PorepId& porep_id, ApiVersion api)
    : nodes_(nodes), api_(api) {
  if (nodes < 2 || !std::has_single_bit(nodes) || nodes > (uint64_t{1} << 32))
    throw std::invalid_argument("SDR graph: " + std::to_string(nodes) +
                                " nodes is not a power of two in [2, 2^32]");
  const auto drg = sha256_tagged("Filecoin_DRSample", porep_id);
  std::copy_n(drg.begin(), 28, drg_seed_.begin());
  const auto feistel = sha256_tagged("Filecoin_Feistel", porep_id);
  for (int k = 0; k < 4; ++k) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = (v << 8) | feistel[8 * k + i];
    keys_[k] = v;
  }
  // The smallest h with 4^h >= 8 nodes: the permutation's domain is [0, 2^2h).
  const uint64_t n = nodes * kExpanderDegree;
  uint32_t h = 1;
  for (uint64_t p = 4; p < n; p *= 4) ++h;
  half_bits_ = h;
  right_mask_ = (uint64_t{1} << h) - 1;
  left_mask_ = right_mask_ << h;
}

void SdrGraph::drg_parents(uint64_t node, uint32_t out[kDrgDegree]) const {
  if (node < 2) {
    std::fill(out, out + kDrgDegree, 0);
    return;
  }
  uint8_t key[32];
  std::copy(drg_seed_.begin(), drg_seed_.end(), key);
  const auto v = static_cast<uint32_t>(node);
  std::memcpy(key + 28, &v, 4);
  ChaCha8 rng(key);
  constexpr uint64_t kMetaDegree = kDrgDegree - 1;
  const uint64_t meta = node * kMetaDegree;
  const auto buckets = static_cast<uint64_t>(std::ceil(std::log2(static_cast<double>(meta))));
  uint32_t random[kMetaDegree];
  for (uint64_t k = 0; k < kMetaDegree; ++k) {
    const uint64_t bucket = rng.next_u64() % buckets + 1;
    const uint64_t hi = std::min(meta, uint64_t{1} << bucket);
    const uint64_t lo = std::max<uint64_t>(2, hi >> 1);
    const uint64_t dist = lo + rng.next_u64() % (hi - lo + 1);
    const uint64_t parent = (meta - dist) / kMetaDegree;
    random[k] = static_cast<uint32_t>(parent == node ? node - 1 : parent);
  }
  const auto pred = static_cast<uint32_t>(node - 1);
  if (api_ == ApiVersion::kV1_0_0) {
    std::copy(random, random + kMetaDegree, out);
    out[kMetaDegree] = pred;
  } else {
    out[0] = pred;
    std::copy(random, random + kMetaDegree, out + 1);
  }
}

uint64_t SdrGraph::feistel_encode(uint64_t x) const {
  uint64_t left = (x & left_mask_) >> half_bits_, right = x & right_mask_;
  Blake2bRound& f = round_function();
  for (int r = 0; r < 3; ++r) {  // three rounds, keys 0..2
    const uint64_t next = left ^ (f.first_u64_be(right, keys_[r]) & right_mask_);
    left = right;
    right = next;
  }
  return (left << half_bits_) | right;
}

uint64_t SdrGraph::feistel_permute(uint64_t x) const {
  const uint64_t n = nodes_ * kExpanderDegree;
  uint64_t y = feistel_encode(x);
  while (y >= n) y = feistel_encode(y);  // cycle-walking back into [0, n)
  return y;
}

void SdrGraph::expander_parents(uint64_t node, uint32_t out[kExpanderDegree]) const {
  for (uint32_t i = 0; i < kExpanderDegree; ++i) {
    const uint64_t t = feistel_permute(node * kExpanderDegree + i);
    out[i] = static_cast<uint32_t>(api_ == ApiVersion::kV1_0_0 ? (t & 0xffffffffu) / 8 : t / 8);
  }
}

std::array<uint32_t, kParents> SdrGraph::parents(uint64_t node) const {
  std::array<uint32_t, kParents> p;
  drg_parents(node, p.data());
  expander_parents(node, p.data() + kDrgDegree);
  return p;
}

std::string SdrGraph::cache_name() const {
  const std::string identifier =
      "stacked_graph::StackedGraph{expansion_degree: 8 base_graph: drgraph::BucketGraph{size: " +
      std::to_string(nodes_) + "; degree: 6; hasher: poseidon_hasher} }";
  Sha256 h;
  h.update("poseidon_hasher", 15);
  h.update(identifier.data(), identifier.size());
  for (uint64_t k : keys_) h.update(&k, 8);  // u64 LE
  const auto entries = static_cast<uint32_t>(nodes_);
  h.update(&entries, 4);
  return "v28-sdr-parent-" + to_hex(h.finish());
}

std::vector<uint32_t> SdrGraph::cache(unsigned threads) const {
  std::vector<uint32_t> out(nodes_ * kParents);
  constexpr uint64_t kChunk = 1 << 12;
  crypto::parallel_for((nodes_ + kChunk - 1) / kChunk, threads, [&](size_t c) {
    for (uint64_t v = c * kChunk; v < std::min(nodes_, (c + 1) * kChunk); ++v) {
      const auto p = parents(v);
      std::copy(p.begin(), p.end(), out.begin() + v * kParents);
    }
  });
  return out;
}

Sha256Digest SdrGraph::cache_digest(unsigned threads) const {
  // Chunks of nodes in parallel, hashed in order.
  constexpr uint64_t kChunk = 1 << 14;
  const uint64_t chunks = (nodes_ + kChunk - 1) / kChunk;
  Sha256 h;
  const unsigned workers = crypto::resolve_threads(threads);
  std::vector<std::vector<uint32_t>> batch(workers);
  for (uint64_t first = 0; first < chunks; first += workers) {
    const uint64_t n = std::min<uint64_t>(workers, chunks - first);
    crypto::parallel_for(n, workers, [&](size_t w) {
      const uint64_t from = (first + w) * kChunk, to = std::min(nodes_, from + kChunk);
      std::vector<uint32_t>& out = batch[w];
      out.resize((to - from) * kParents);
      for (uint64_t v = from; v < to; ++v) {
        const auto p = parents(v);
        std::copy(p.begin(), p.end(), out.begin() + (v - from) * kParents);
      }
    });
    for (uint64_t w = 0; w < n; ++w) h.update(batch[w].data(), batch[w].size() * 4);
  }
  return h.finish();
}

}  // namespace zkpipe::filecoin
