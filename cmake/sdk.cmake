# The SDK a plugin author builds against, out of this tree (`cmake --install build --component sdk
# --prefix P`, also in the Debian package):
#   P/include/zkpipe/sdk/    engine/include/zkpipe/sdk as it is: the C ABI (abi/), sdk.h,
#                            status.h, units.h, clock.h, cuda_check.h, cuda_info.h, output_file.h,
#                            file_io.h, the glue (proof_type_plugin.h, compute_glue.h) and the
#                            vanilla formats' readers (byte_io.h, json_fields.h, request.h)
#   P/include/zkpipe/        crypto/ (fields, curves), groth16/ (constraint system, R1CS),
#                            gadgets/ (Boolean, UInt32, bits, SHA-256, Poseidon, Merkle), sector/
#                            (shape, graph, seal, sector_file: sealed sectors and tree R);
#                            nothing else of the engine
#   P/lib/zkpipe/sdk/        the static, position-independent libraries behind those headers
#   P/lib/zkpipe/cmake/      the package: find_package(zkpipe CONFIG) gives zkpipe::sdk (headers:
#                            enough for a memory or compute plugin), zkpipe::proof_sdk (a proof
#                            type: the glue, gadgets, groth16, crypto), zkpipe::sector (sealed
#                            sectors), zkpipe::compute_glue (a compute plugin's entry points),
#                            zkpipe::units, zkpipe::system (cuda_info.h), and zkpipe_add_plugin()
#                            (plugins.cmake, with its linker version script plugin.map)
# tests/sdk_plugin builds a memory plugin and a proof type against such a prefix.

# A proof type's SDK: the glue header (zkpipe/sdk/proof_type_plugin.h) and the libraries it needs.
add_library(zkpipe_proof_sdk INTERFACE)
add_library(zkpipe::proof_sdk ALIAS zkpipe_proof_sdk)
target_link_libraries(zkpipe_proof_sdk INTERFACE zkpipe::sdk zkpipe::gadgets)

set(ZKPIPE_SDK_LIBRARIES files crypto groth16 filecoin gadgets sector units system compute_glue)
foreach(t sdk proof_sdk ${ZKPIPE_SDK_LIBRARIES})
  set_target_properties(zkpipe_${t} PROPERTIES EXPORT_NAME ${t})
endforeach()
list(TRANSFORM ZKPIPE_SDK_LIBRARIES PREPEND zkpipe_ OUTPUT_VARIABLE sdk_targets)
install(TARGETS zkpipe_sdk zkpipe_proof_sdk ${sdk_targets}
        EXPORT zkpipeTargets
        ARCHIVE DESTINATION lib/zkpipe/sdk COMPONENT sdk)
install(EXPORT zkpipeTargets NAMESPACE zkpipe:: DESTINATION lib/zkpipe/cmake COMPONENT sdk)

# The headers: the SDK folder whole (abi/ with its CHANGELOG, sdk.h, status.h, the glue and the
# readers; byte_io.h, json_fields.h and request.h need nlohmann_json, which a plugin project
# finds itself), and the libraries' headers.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/engine/include/zkpipe/sdk
        DESTINATION include/zkpipe COMPONENT sdk)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/engine/include/zkpipe/crypto
                  ${PROJECT_SOURCE_DIR}/engine/include/zkpipe/groth16
                  ${PROJECT_SOURCE_DIR}/engine/include/zkpipe/filecoin
                  ${PROJECT_SOURCE_DIR}/plugins/gadgets/include/zkpipe/gadgets
                  ${PROJECT_SOURCE_DIR}/plugins/sector/include/zkpipe/sector
        DESTINATION include/zkpipe COMPONENT sdk FILES_MATCHING PATTERN "*.h")

include(CMakePackageConfigHelpers)
file(STRINGS ${PROJECT_SOURCE_DIR}/engine/include/zkpipe/sdk/abi/common.h abi_lines
     REGEX "^#define ZKP_ABI_M(AJOR|INOR) [0-9]+")
string(REGEX REPLACE ".*ZKP_ABI_MAJOR ([0-9]+).*" "\\1" abi_major "${abi_lines}")
string(REGEX REPLACE ".*ZKP_ABI_MINOR ([0-9]+).*" "\\1" abi_minor "${abi_lines}")
set(ZKPIPE_ABI_VERSION ${abi_major}.${abi_minor})
if(ZKPIPE_SANITIZE OR ZKPIPE_SANITIZE_THREAD)
  set(ZKPIPE_SDK_SANITIZED ON)
else()
  set(ZKPIPE_SDK_SANITIZED OFF)
endif()
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/zkpipeConfig.cmake.in
  ${PROJECT_BINARY_DIR}/sdk/zkpipeConfig.cmake INSTALL_DESTINATION lib/zkpipe/cmake)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/sdk/zkpipeConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/sdk/zkpipeConfig.cmake
              ${PROJECT_BINARY_DIR}/sdk/zkpipeConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/plugins.cmake ${PROJECT_SOURCE_DIR}/cmake/plugin.map
        DESTINATION lib/zkpipe/cmake COMPONENT sdk)

# Stripped installs (`cmake --install --strip`, and the Debian package: CPACK_STRIP_FILES) drop
# the archives' debug info, most of their size (RelWithDebInfo: 67 MB -> 4.5 MB).
install(CODE "
  if(CMAKE_INSTALL_DO_STRIP)
    foreach(archive ${ZKPIPE_SDK_LIBRARIES})
      execute_process(COMMAND \"${CMAKE_STRIP}\" --strip-debug
        \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/lib/zkpipe/sdk/libzkpipe_\${archive}.a\"
        RESULT_VARIABLE rc)
      if(NOT rc EQUAL 0)
        message(FATAL_ERROR \"strip --strip-debug libzkpipe_\${archive}.a failed: \${rc}\")
      endif()
    endforeach()
  endif()
" COMPONENT sdk)
