// tests/pipeline/parse_memory_test.cpp: a request's parse memory is in the budget (issue 34 #3).
// json_tree_bytes_bound is at least the heap nlohmann::json's tree of the same bytes takes
// (measured from the allocator: glibc's mallinfo2, or ASan's count under ASan), and not wildly
// more, for the shapes requests have: number arrays (Filecoin's C1 output), hex strings (PoSt
// vanilla proofs), objects, escapes; an engine refuses a request whose parse cannot fit its
// budget, naming the parse and the budget, and parses one that can.
#include <malloc.h>

// Under a sanitizer its allocator counts (glibc's mallinfo2 sees none of its heap). GCC says
// __SANITIZE_*__ (the TSan build); clang says __has_feature (the ASan build).
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define ZKPIPE_SANITIZER_HEAP 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define ZKPIPE_SANITIZER_HEAP 1
#endif
#endif
#if defined(ZKPIPE_SANITIZER_HEAP)
// From the sanitizer runtime (clang's sanitizer/allocator_interface.h; GCC ships no such header).
extern "C" size_t __sanitizer_get_current_allocated_bytes();
#endif

#include "engine_fixture.h"
#include "zkpipe/pipeline/memory_model.h"

namespace zkpipe::testing {
namespace {

using Catch::Matchers::Contains;

uint64_t heap_in_use() {
#if defined(ZKPIPE_SANITIZER_HEAP)
  return __sanitizer_get_current_allocated_bytes();
#else
  const struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;  // in use in the heap, and in mmap()ed chunks
#endif
}

// The heap the tree of `text` takes, measured (the text itself allocated before).
uint64_t measured_tree_bytes(const std::string& text) {
  const uint64_t before = heap_in_use();
  const nlohmann::json j = nlohmann::json::parse(text);
  const uint64_t after = heap_in_use();
  return after > before ? after - before : 0;
}

std::span<const uint8_t> bytes_of(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

std::string numbers(size_t n) {  // [12,250,7,...]: bytes as numbers, as a C1 output has them
  std::string s = "[";
  for (size_t i = 0; i < n; ++i) s += (i ? "," : "") + std::to_string((i * 37) % 256);
  return s + "]";
}

TEST_CASE("Parse memory: the JSON tree bound holds the measured tree", "[pipeline]") {
  std::string hex_proofs = R"({"registered_proof": "StackedDrgWindow32GiBV1", "vanilla_proofs": [)";
  for (int i = 0; i < 2000; ++i) {
    hex_proofs += (i ? "," : "") + ('"' + std::string(600, "0123456789abcdef"[i % 16]) + '"');
  }
  hex_proofs += "]}";
  std::string c1_like = R"({"vanilla_proofs": {"StackedDrg2KiBV1": [[)";
  for (int p = 0; p < 300; ++p) {
    c1_like += std::string(p ? "," : "") + R"({"comm_d_proofs": {"root": )" + numbers(32) +
               R"(, "leaf": )" + numbers(32) + R"(, "path": [[)" + numbers(32) + R"(, 1]]}})";
  }
  c1_like += "]]}}";
  std::string members = "{";
  for (int i = 0; i < 5000; ++i) {
    members += (i ? ",\"k" : "\"k") + std::to_string(i) +
               "_a_long_key_name\": " + (i % 2 ? "true" : "\"v\\n\\u00e9\"");
  }
  members += "}";
  const std::string big_array = "{\"pad\": " + numbers(300000) + "}";
  const std::string nested = R"({"a": [[[[{"b": [1, 2.5e3, -7, null, false]}]]]], "c": {}})";
  for (const std::string* text : std::initializer_list<const std::string*>{
           &hex_proofs, &c1_like, &members, &big_array, &nested}) {
    const uint64_t bound = pipeline::json_tree_bytes_bound(bytes_of(*text));
    const uint64_t measured = measured_tree_bytes(*text);
    INFO(text->substr(0, 60) << "...: " << text->size() << " bytes, bound " << bound
                             << ", measured " << measured);
    CHECK(bound >= measured);
    CHECK(bound <= 3 * measured + 4096);  // a bound, not a guess many times too large
  }
  // The reservation: the decoded request and the tree for JSON; the bytes alone for binary.
  const std::string binary(1 << 20, '\x07');
  CHECK(pipeline::parse_reservation_bytes(bytes_of(binary)) == binary.size());
  CHECK(pipeline::parse_reservation_bytes(bytes_of(big_array)) ==
        big_array.size() + pipeline::json_tree_bytes_bound(bytes_of(big_array)));
}

TEST_CASE("Parse memory: a request whose parse cannot fit the budget is refused", "[pipeline]") {
  TempDir dir("zkpipe_parse_memory");
  const Config config = test_config("budget: 16MiB", "threads: 1", dir.file("params"));
  auto engine = make_engine(config);
  // ~7 MB of JSON whose tree is over 32 MiB (16 bytes a number, capacity 2^21): its parse alone
  // is over the 16 MiB budget, refused before the proof type builds anything.
  pipeline::JobRequest big =
      mimc_request(24, 1, 1, pipeline::Priority::kNormal, ", \"pad\": " + numbers(2000000));
  big.input_name = "big.json";
  const uint64_t need = pipeline::parse_reservation_bytes(big.input);
  REQUIRE(need > (uint64_t{16} << 20));
  const Result<pipeline::Submitted> refused = engine->check(big);
  INFO(refused.status().to_string());
  CHECK(refused.status().code() == Code::kResourceExhausted);
  CHECK_THAT(refused.status().message(), Contains("big.json: parsing it") &&
                                             Contains("memory budget of 16 MiB") &&
                                             Contains("binary form"));
  // A request whose parse fits is parsed (mimc_jobs ignores keys it does not know), and the
  // parse's reservation is given back.
  const pipeline::JobRequest small =
      mimc_request(24, 1, 1, pipeline::Priority::kNormal, ", \"pad\": " + numbers(1000));
  const Result<pipeline::Submitted> parsed = engine->check(small);
  INFO(parsed.status().to_string());
  CHECK(parsed.ok());
  CHECK(engine->check(mimc_request(24, 1, 1)).ok());
  CHECK(engine->status_json()["budget"]["reserved_bytes"] == 0);
}

}  // namespace
}  // namespace zkpipe::testing
