// engine/pipeline/parse_memory.cpp: what parsing a request costs in memory, reserved in the
// budget while a proof type parses it (issue 34 #3: a JSON request was parsed into a tree of up
// to ~8x its bytes outside the budget, and a daemon under a 1.5 GiB cgroup was OOM-killed).
// json_tree_bytes_bound is one linear pass over the bytes, no allocation but a stack of the
// open arrays' lengths: an upper bound of what nlohmann::json's tree of them takes on the heap
// (libstdc++ and glibc malloc: 16 bytes a value, vectors grown by doubling, a map node a
// member, a heap string past 15 bytes, 16 bytes of malloc overhead an allocation).
#include <algorithm>
#include <vector>

#include "zkpipe/pipeline/memory_model.h"

namespace zkpipe::pipeline {
namespace {

constexpr uint64_t kMallocOverhead = 16;
constexpr uint64_t kJsonValue = 16;                       // sizeof(nlohmann::json)
constexpr uint64_t kStringObject = 32 + kMallocOverhead;  // a std::string the value points to
constexpr uint64_t kVectorObject = 24 + kMallocOverhead;  // a std::vector an array points to
constexpr uint64_t kMapObject = 48 + kMallocOverhead;     // a std::map an object points to
// A member: its map node (rb-tree header, key string, value) with malloc's overhead.
constexpr uint64_t kMapNode = 32 + 32 + kJsonValue + kMallocOverhead;

uint64_t heap_string(uint64_t length) {  // past the short-string buffer: its own allocation
  return length > 15 ? ((length + 1 + 15) / 16) * 16 + kMallocOverhead : 0;
}

uint64_t capacity(uint64_t n) {  // a vector grown one push_back at a time
  uint64_t c = 1;
  while (c < n) c <<= 1;
  return n == 0 ? 0 : c;
}

}  // namespace

uint64_t json_tree_bytes_bound(std::span<const uint8_t> bytes) {
  // Open containers: for an array, its element count so far; for an object, UINT64_MAX.
  constexpr uint64_t kObject = UINT64_MAX;
  std::vector<uint64_t> open;
  uint64_t total = kJsonValue, largest_array = 0;
  bool key_next = false;            // in an object, the next string is a key
  auto value = [&](uint64_t own) {  // a value starts: its slot in its container, and `own`
    if (!open.empty() && open.back() != kObject) ++open.back();
    total += own;
  };
  for (size_t i = 0; i < bytes.size(); ++i) {
    const uint8_t c = bytes[i];
    if (c == '"') {
      uint64_t length = 0;
      for (++i; i < bytes.size() && bytes[i] != '"'; ++i, ++length) {
        if (bytes[i] == '\\') ++i;  // an escape is at least two bytes for one character or more
      }
      if (key_next) {
        total += kMapNode + heap_string(length);
        key_next = false;
      } else {
        value(kStringObject + heap_string(length));
      }
    } else if (c == '{') {
      value(kMapObject);
      open.push_back(kObject);
      key_next = true;
    } else if (c == '[') {
      value(kVectorObject);
      open.push_back(0);
    } else if (c == '}' || c == ']') {
      if (!open.empty()) {
        if (open.back() != kObject) {
          const uint64_t n = open.back();
          total += capacity(n) * kJsonValue + (n > 0 ? kMallocOverhead : 0);
          largest_array = std::max(largest_array, n);
        }
        open.pop_back();
      }
      key_next = false;
    } else if (c == ',') {
      key_next = !open.empty() && open.back() == kObject;
    } else if (c == '-' || (c >= '0' && c <= '9') || c == 't' || c == 'f' || c == 'n') {
      value(0);  // inline in its slot
      while (i + 1 < bytes.size() && bytes[i + 1] != ',' && bytes[i + 1] != ']' &&
             bytes[i + 1] != '}' && bytes[i + 1] != ' ' && bytes[i + 1] != '\n') {
        ++i;
      }
    }
  }
  // While the largest array last grew, its old storage and the new one were both alive.
  return total + capacity(largest_array) / 2 * kJsonValue;
}

uint64_t parse_reservation_bytes(std::span<const uint8_t> input) {
  const auto first = std::find_if(input.begin(), input.end(), [](uint8_t c) {
    return c != ' ' && c != '\t' && c != '\n' && c != '\r';
  });
  // What the proof type decodes is bounded by the request's own size (the parsed request the job
  // then holds, request_reservation_bytes); a JSON request first becomes a tree.
  const uint64_t decoded = request_reservation_bytes(input.size());
  if (first == input.end() || *first != '{') return decoded;
  return decoded + json_tree_bytes_bound(input);
}

}  // namespace zkpipe::pipeline
