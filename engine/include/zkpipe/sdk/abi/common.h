/* zkpipe/sdk/abi/common.h: the part of the plugin ABI every plugin kind shares.
 * Plain C. Only fixed-width integers, pointers + lengths and opaque handles cross it.
 * Every plugin .so exports one constant table named ZKP_PLUGIN_SYMBOL whose first member is a
 * zkp_plugin_header. Fields are only ever appended; see CHANGELOG.md beside this file.
 * Thread-safety: a descriptor is immutable; each entry point documents its own contract. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bump major on any incompatible change; bump minor when appending fields. */
#define ZKP_ABI_MAJOR 1
#define ZKP_ABI_MINOR 8

/* The one exported symbol of every plugin. */
#define ZKP_PLUGIN_SYMBOL zkp_plugin
#define ZKP_PLUGIN_SYMBOL_NAME "zkp_plugin"

/* Error codes; identical to zkpipe::Code. */
typedef int32_t zkp_status;
#define ZKP_OK 0
#define ZKP_ERR_INVALID_ARGUMENT 1
#define ZKP_ERR_NOT_FOUND 2
#define ZKP_ERR_UNAVAILABLE 3
#define ZKP_ERR_RESOURCE_EXHAUSTED 4
#define ZKP_ERR_DEADLINE_EXCEEDED 5
#define ZKP_ERR_FAILED_PRECONDITION 6
#define ZKP_ERR_INTERNAL 7
#define ZKP_ERR_ABORTED 8
#define ZKP_ERR_ALREADY_EXISTS 9 /* 1.5 */

/* Plugin kinds. Each has its own header with its descriptor type. */
typedef enum zkp_plugin_kind {
  ZKP_KIND_MEMORY = 1,    /* abi/memory.h */
  ZKP_KIND_COMPUTE = 2,   /* abi/compute.h (1.2) */
  ZKP_KIND_PROOF_TYPE = 3 /* abi/proof_type.h */
} zkp_plugin_kind;

/* The size of the message buffer the engine hands every entry point (zkp_error.capacity). */
#define ZKP_ERROR_CAPACITY 2048

/* BLS12-381 Fr in Montgomery form (R = 2^256 mod r), four little-endian 64-bit limbs: the
 * engine's in-memory layout. (Declared in proof_type.h up to 1.1; moved here unchanged.) */
typedef struct zkp_fr {
  uint64_t limbs[4];
} zkp_fr;

/* Where an entry point writes its error message: a caller-owned buffer. The callee writes a
 * NUL-terminated string of at most capacity - 1 bytes (truncating) and never keeps the pointer. */
typedef struct zkp_error {
  char* message;
  size_t capacity;
} zkp_error;

/* Log levels, as spdlog's. */
#define ZKP_LOG_TRACE 0
#define ZKP_LOG_DEBUG 1
#define ZKP_LOG_INFO 2
#define ZKP_LOG_WARN 3
#define ZKP_LOG_ERROR 4

/* What the engine offers a plugin at init. Valid for the life of the process. */
typedef struct zkp_host {
  uint32_t struct_size;
  uint16_t abi_major;
  uint16_t abi_minor;
  /* Thread-safe. `message` is copied before it returns. */
  void (*log)(int32_t level, const char* plugin_name, const char* message);
} zkp_host;

/* The first member of every descriptor. */
typedef struct zkp_plugin_header {
  uint32_t struct_size;  /* sizeof the whole descriptor the plugin was built with */
  uint16_t abi_major;    /* ZKP_ABI_MAJOR the plugin was built against */
  uint16_t abi_minor;    /* ZKP_ABI_MINOR the plugin was built against */
  uint32_t kind;         /* zkp_plugin_kind */
  uint32_t reserved;     /* zero */
  const char* name;      /* [a-z0-9_]+, equal to the manifest's name */
  const char* version;   /* semantic version, equal to the manifest's version */
  const char* build_tag; /* compiler and CUDA runtime, e.g. "gcc 12.2.0; cuda 13.0" */
  /* Called once, on the start-up thread, before any other entry point. ZKP_ERR_UNAVAILABLE
   * means the machine lacks what the plugin needs (the message says what). */
  zkp_status (*init)(const zkp_host* host, zkp_error err);
  /* Exercises the plugin on this machine; thread-safe; may take up to a few seconds. */
  zkp_status (*self_test)(zkp_error err);
} zkp_plugin_header;

#ifdef __cplusplus
} /* extern "C" */
#endif
