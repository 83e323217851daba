// Pins the layout of every ABI struct (x86_64 / aarch64 LP64). A change here without an ABI
// bump in engine/include/zkpipe/sdk/abi/CHANGELOG.md breaks every built plugin.
#include <cstddef>

#include <catch2/catch.hpp>

#include "zkpipe/sdk/abi/common.h"
#include "zkpipe/sdk/abi/compute.h"
#include "zkpipe/sdk/abi/memory.h"
#include "zkpipe/sdk/abi/proof_type.h"
#include "zkpipe/sdk/status.h"

#define ZKP_PIN(type, field, offset) \
  static_assert(offsetof(type, field) == (offset), #type "." #field)

ZKP_PIN(zkp_plugin_header, struct_size, 0);
ZKP_PIN(zkp_plugin_header, abi_major, 4);
ZKP_PIN(zkp_plugin_header, abi_minor, 6);
ZKP_PIN(zkp_plugin_header, kind, 8);
ZKP_PIN(zkp_plugin_header, reserved, 12);
ZKP_PIN(zkp_plugin_header, name, 16);
ZKP_PIN(zkp_plugin_header, version, 24);
ZKP_PIN(zkp_plugin_header, build_tag, 32);
ZKP_PIN(zkp_plugin_header, init, 40);
ZKP_PIN(zkp_plugin_header, self_test, 48);
static_assert(sizeof(zkp_plugin_header) == 56);

ZKP_PIN(zkp_error, message, 0);
ZKP_PIN(zkp_error, capacity, 8);
static_assert(sizeof(zkp_error) == 16);

ZKP_PIN(zkp_host, struct_size, 0);
ZKP_PIN(zkp_host, abi_major, 4);
ZKP_PIN(zkp_host, abi_minor, 6);
ZKP_PIN(zkp_host, log, 8);
static_assert(sizeof(zkp_host) == 16);

ZKP_PIN(zkp_buffer, host_ptr, 0);
ZKP_PIN(zkp_buffer, device_ptr, 8);
ZKP_PIN(zkp_buffer, bytes, 16);
ZKP_PIN(zkp_buffer, flags, 24);
ZKP_PIN(zkp_buffer, reserved, 28);
static_assert(sizeof(zkp_buffer) == 32);

ZKP_PIN(zkp_memory_options, struct_size, 0);
ZKP_PIN(zkp_memory_options, on_cap, 4);
ZKP_PIN(zkp_memory_options, cap_bytes, 8);
ZKP_PIN(zkp_memory_options, wait_timeout_ms, 16);
ZKP_PIN(zkp_memory_options, huge_pages, 24);
ZKP_PIN(zkp_memory_options, reuse, 28);
ZKP_PIN(zkp_memory_options, prealloc_bytes, 32);
ZKP_PIN(zkp_memory_options, prealloc_count, 40);
ZKP_PIN(zkp_memory_options, prealloc_entries, 48);
ZKP_PIN(zkp_memory_options, reserved, 52);
static_assert(sizeof(zkp_memory_options) == 56);

ZKP_PIN(zkp_memory_stats, struct_size, 0);
ZKP_PIN(zkp_memory_stats, cap_bytes, 8);
ZKP_PIN(zkp_memory_stats, in_use_bytes, 16);
ZKP_PIN(zkp_memory_stats, held_bytes, 24);
ZKP_PIN(zkp_memory_stats, high_water_bytes, 32);
ZKP_PIN(zkp_memory_stats, allocations, 40);
ZKP_PIN(zkp_memory_stats, reuses, 48);
ZKP_PIN(zkp_memory_stats, releases, 56);
ZKP_PIN(zkp_memory_stats, failures, 64);
ZKP_PIN(zkp_memory_stats, waits, 72);
ZKP_PIN(zkp_memory_stats, alloc_ns, 80);
ZKP_PIN(zkp_memory_stats, wait_ns, 88);
static_assert(sizeof(zkp_memory_stats) == 96);

ZKP_PIN(zkp_memory_backend, header, 0);
ZKP_PIN(zkp_memory_backend, create, 56);
ZKP_PIN(zkp_memory_backend, destroy, 64);
ZKP_PIN(zkp_memory_backend, allocate, 72);
ZKP_PIN(zkp_memory_backend, release, 80);
ZKP_PIN(zkp_memory_backend, stats, 88);
ZKP_PIN(zkp_memory_backend, buffer_flags, 96);  // 1.2
ZKP_PIN(zkp_memory_backend, reserved_1_2, 100);
static_assert(sizeof(zkp_memory_backend) == 104);

static_assert(sizeof(zkp_fr) == 32);
ZKP_PIN(zkp_job_info, struct_size, 0);
ZKP_PIN(zkp_job_info, partitions, 4);
ZKP_PIN(zkp_job_info, num_inputs, 8);
ZKP_PIN(zkp_job_info, num_aux, 12);
ZKP_PIN(zkp_job_info, num_constraints, 16);
ZKP_PIN(zkp_job_info, circuit_id, 24);
static_assert(sizeof(zkp_job_info) == 120);
ZKP_PIN(zkp_sparse_matrix, row_begin, 0);
ZKP_PIN(zkp_sparse_matrix, column, 8);
ZKP_PIN(zkp_sparse_matrix, value, 16);
ZKP_PIN(zkp_sparse_matrix, terms, 24);
static_assert(sizeof(zkp_sparse_matrix) == 32);
ZKP_PIN(zkp_r1cs_view, struct_size, 0);
ZKP_PIN(zkp_r1cs_view, num_inputs, 4);
ZKP_PIN(zkp_r1cs_view, num_aux, 8);
ZKP_PIN(zkp_r1cs_view, num_constraints, 12);
ZKP_PIN(zkp_r1cs_view, a, 16);
ZKP_PIN(zkp_r1cs_view, b, 48);
ZKP_PIN(zkp_r1cs_view, c, 80);
static_assert(sizeof(zkp_r1cs_view) == 112);
ZKP_PIN(zkp_proof_type, header, 0);
ZKP_PIN(zkp_proof_type, parse, 56);
ZKP_PIN(zkp_proof_type, destroy_job, 64);
ZKP_PIN(zkp_proof_type, info, 72);
ZKP_PIN(zkp_proof_type, synthesize, 80);
ZKP_PIN(zkp_proof_type, public_inputs, 88);
ZKP_PIN(zkp_proof_type, record, 96);
ZKP_PIN(zkp_proof_type, destroy_r1cs, 104);
ZKP_PIN(zkp_proof_type, partition_index, 112);  // 1.1
ZKP_PIN(zkp_proof_type, presets, 120);          // 1.2
ZKP_PIN(zkp_proof_type, preset_count, 128);
ZKP_PIN(zkp_proof_type, reserved_1_2, 132);
ZKP_PIN(zkp_proof_type, sample_request, 136);
ZKP_PIN(zkp_proof_type, default_priority, 144);  // 1.3
ZKP_PIN(zkp_proof_type, reserved_1_3, 148);
ZKP_PIN(zkp_proof_type, default_deadline_ms, 152);
ZKP_PIN(zkp_proof_type, command, 160);
ZKP_PIN(zkp_proof_type, preset_circuit, 168);  // 1.7
static_assert(sizeof(zkp_proof_type) == 176);
ZKP_PIN(zkp_preset_circuit, struct_size, 0);  // 1.7
ZKP_PIN(zkp_preset_circuit, flags, 4);        // 1.8: was reserved
ZKP_PIN(zkp_preset_circuit, info, 8);
ZKP_PIN(zkp_preset_circuit, terms_a, 128);
ZKP_PIN(zkp_preset_circuit, terms_b, 136);
ZKP_PIN(zkp_preset_circuit, terms_c, 144);
static_assert(sizeof(zkp_preset_circuit) == 152);
static_assert(ZKP_PRESET_CIRCUIT_ID_ONLY == 1u);  // 1.8
static_assert(ZKP_PRIORITY_NONE == 0 && ZKP_PRIORITY_CRITICAL == 1 && ZKP_PRIORITY_LOW == 4);
ZKP_PIN(zkp_preset, name, 0);
ZKP_PIN(zkp_preset, description, 8);
ZKP_PIN(zkp_preset, partitions, 16);
ZKP_PIN(zkp_preset, reserved, 20);
static_assert(sizeof(zkp_preset) == 24);

// compute.h (1.2)
ZKP_PIN(zkp_g1_affine, x, 0);
ZKP_PIN(zkp_g1_affine, y, 48);
ZKP_PIN(zkp_g1_affine, infinity, 96);
static_assert(sizeof(zkp_g1_affine) == 104);
ZKP_PIN(zkp_compute_device, struct_size, 0);
ZKP_PIN(zkp_compute_device, status, 4);
ZKP_PIN(zkp_compute_device, memory_bytes, 8);
ZKP_PIN(zkp_compute_device, name, 16);
ZKP_PIN(zkp_compute_device, model, 48);
ZKP_PIN(zkp_compute_device, uuid, 144);
ZKP_PIN(zkp_compute_device, status_message, 192);
ZKP_PIN(zkp_compute_device, memory_used_bytes, 704);
ZKP_PIN(zkp_compute_device, memory_free_bytes, 712);
ZKP_PIN(zkp_compute_device, memory_budget_bytes, 720);
static_assert(sizeof(zkp_compute_device) == 728);
ZKP_PIN(zkp_compute_options, struct_size, 0);
ZKP_PIN(zkp_compute_options, workers_per_device, 4);
ZKP_PIN(zkp_compute_options, threads, 8);
ZKP_PIN(zkp_compute_options, memory_flags, 12);
ZKP_PIN(zkp_compute_options, devices, 16);
ZKP_PIN(zkp_compute_options, device_count, 24);
ZKP_PIN(zkp_compute_options, reserved, 28);
ZKP_PIN(zkp_compute_options, device_budget_bytes, 32);
static_assert(sizeof(zkp_compute_options) == 40);
ZKP_PIN(zkp_key_view, struct_size, 0);
ZKP_PIN(zkp_key_view, num_inputs, 4);
ZKP_PIN(zkp_key_view, num_aux, 8);
ZKP_PIN(zkp_key_view, domain_size, 16);
ZKP_PIN(zkp_key_view, a_density, 24);
ZKP_PIN(zkp_key_view, b_density, 32);
ZKP_PIN(zkp_key_view, density_words, 40);
ZKP_PIN(zkp_key_view, h_query, 48);
ZKP_PIN(zkp_key_view, h_count, 56);
ZKP_PIN(zkp_key_view, l_query, 64);
ZKP_PIN(zkp_key_view, a_query, 80);
ZKP_PIN(zkp_key_view, b_g1_query, 96);
ZKP_PIN(zkp_key_view, b_count, 104);
static_assert(sizeof(zkp_key_view) == 112);
ZKP_PIN(zkp_prove_input, struct_size, 0);
ZKP_PIN(zkp_prove_input, abc_flags, 4);
ZKP_PIN(zkp_prove_input, abc, 8);
ZKP_PIN(zkp_prove_input, abc_device, 16);
ZKP_PIN(zkp_prove_input, n, 24);
ZKP_PIN(zkp_prove_input, inputs, 32);
ZKP_PIN(zkp_prove_input, aux, 48);
ZKP_PIN(zkp_prove_input, a_scalars, 64);
ZKP_PIN(zkp_prove_input, b_scalars, 80);
ZKP_PIN(zkp_prove_input, b_count, 88);
ZKP_PIN(zkp_prove_input, stop, 96);
static_assert(sizeof(zkp_prove_input) == 104);
ZKP_PIN(zkp_prove_result, struct_size, 0);
ZKP_PIN(zkp_prove_result, h2d_path, 4);
ZKP_PIN(zkp_prove_result, h, 8);
ZKP_PIN(zkp_prove_result, l, 112);
ZKP_PIN(zkp_prove_result, a, 216);
ZKP_PIN(zkp_prove_result, b_g1, 320);
ZKP_PIN(zkp_prove_result, ntt_ns, 424);
ZKP_PIN(zkp_prove_result, b_g1_msm_ns, 456);
ZKP_PIN(zkp_prove_result, h2d_bytes, 464);
ZKP_PIN(zkp_prove_result, bases_bytes, 480);
static_assert(sizeof(zkp_prove_result) == 488);
ZKP_PIN(zkp_compute_backend, header, 0);
ZKP_PIN(zkp_compute_backend, create, 56);
ZKP_PIN(zkp_compute_backend, destroy, 64);
ZKP_PIN(zkp_compute_backend, device_count, 72);
ZKP_PIN(zkp_compute_backend, device_info, 80);
ZKP_PIN(zkp_compute_backend, register_key, 88);
ZKP_PIN(zkp_compute_backend, destroy_key, 96);
ZKP_PIN(zkp_compute_backend, prove_start, 104);
ZKP_PIN(zkp_compute_backend, wait, 112);
ZKP_PIN(zkp_compute_backend, destroy_pending, 120);
static_assert(sizeof(zkp_compute_backend) == 128);

using zkpipe::Code;
static_assert(static_cast<int>(Code::kOk) == ZKP_OK);
static_assert(static_cast<int>(Code::kInvalidArgument) == ZKP_ERR_INVALID_ARGUMENT);
static_assert(static_cast<int>(Code::kNotFound) == ZKP_ERR_NOT_FOUND);
static_assert(static_cast<int>(Code::kUnavailable) == ZKP_ERR_UNAVAILABLE);
static_assert(static_cast<int>(Code::kResourceExhausted) == ZKP_ERR_RESOURCE_EXHAUSTED);
static_assert(static_cast<int>(Code::kDeadlineExceeded) == ZKP_ERR_DEADLINE_EXCEEDED);
static_assert(static_cast<int>(Code::kFailedPrecondition) == ZKP_ERR_FAILED_PRECONDITION);
static_assert(static_cast<int>(Code::kInternal) == ZKP_ERR_INTERNAL);
static_assert(static_cast<int>(Code::kAborted) == ZKP_ERR_ABORTED);
static_assert(static_cast<int>(Code::kAlreadyExists) == ZKP_ERR_ALREADY_EXISTS);

TEST_CASE("ABI: version constants are the ones the changelog documents", "[abi]") {
  CHECK(ZKP_ABI_MAJOR == 1);
  CHECK(ZKP_ABI_MINOR == 8);
  CHECK(ZKP_ERROR_CAPACITY == 2048);
  CHECK(std::string(ZKP_PLUGIN_SYMBOL_NAME) == "zkp_plugin");
}
