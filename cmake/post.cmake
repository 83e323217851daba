# window_post and winning_post (plugins/post/) are built the way an outside author builds a proof
# type: against the INSTALLED SDK only. After the SDK's libraries are built, zkpipe_sdk_stage
# installs the SDK component into <build>/sdk-stage (cmake --install; unchanged files are left
# alone, so a rebuild after a stage is quick), then the external project zkpipe_post configures
# plugins/post with CMAKE_PREFIX_PATH at that stage and builds window_post.so, winning_post.so
# (with their manifests, into the build's plugin directory, where zkpipe finds them) and
# post_tests (in <build>/post-build; tests/post runs it).
# Not in the sanitizer builds: the ThreadSanitizer build makes only the pipeline's tests, and under
# ASan + UBSan (-O0) the stage and a second project would add minutes to CI for parsers that the
# libFuzzer runs (tests/fuzz, ASan + UBSan) already cover.
if(ZKPIPE_SANITIZE OR ZKPIPE_SANITIZE_THREAD)
  message(STATUS "zkpipe: window_post and winning_post OFF (a sanitizer build)")
  return()
endif()
include(ExternalProject)

set(ZKPIPE_SDK_STAGE ${CMAKE_BINARY_DIR}/sdk-stage)
set(ZKPIPE_POST_BUILD ${CMAKE_BINARY_DIR}/post-build)
add_custom_target(zkpipe_sdk_stage
  COMMAND ${CMAKE_COMMAND} --install ${CMAKE_BINARY_DIR} --component sdk
          --prefix ${ZKPIPE_SDK_STAGE} > ${CMAKE_BINARY_DIR}/sdk-stage.log
  COMMENT "Staging the SDK in ${ZKPIPE_SDK_STAGE} (for plugins/post; log: sdk-stage.log)")
add_dependencies(zkpipe_sdk_stage zkpipe_files zkpipe_crypto zkpipe_groth16 zkpipe_gadgets
                 zkpipe_sector)

ExternalProject_Add(zkpipe_post
  SOURCE_DIR ${PROJECT_SOURCE_DIR}/plugins/post
  BINARY_DIR ${ZKPIPE_POST_BUILD}
  CMAKE_ARGS -DCMAKE_PREFIX_PATH=${ZKPIPE_SDK_STAGE}
             -DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER}
             -DCMAKE_BUILD_TYPE=${CMAKE_BUILD_TYPE}
             "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=${CMAKE_CXX_FLAGS_RELWITHDEBINFO}"
             "-DCMAKE_CXX_FLAGS_DEBUG=${CMAKE_CXX_FLAGS_DEBUG}"
             -DZKPIPE_PLUGIN_OUTPUT_DIR=${ZKPIPE_PLUGIN_OUTPUT_DIR}
             -DPOST_TESTS=${ZKPIPE_TESTS}
  INSTALL_COMMAND ""
  BUILD_ALWAYS ON
  DEPENDS zkpipe_sdk_stage)
# Installed (and packaged) beside the other plugins, as zkpipe_add_plugin installs in-tree ones.
foreach(type window_post winning_post)
  install(PROGRAMS ${ZKPIPE_PLUGIN_OUTPUT_DIR}/${type}.so DESTINATION lib/zkpipe/plugins
          COMPONENT runtime)
  install(FILES ${ZKPIPE_PLUGIN_OUTPUT_DIR}/${type}.plugin.toml DESTINATION lib/zkpipe/plugins
          COMPONENT runtime)
endforeach()
