# zkpipe_add_plugin(NAME <name> [MANIFEST <file.plugin.toml>] SOURCES ... [LIBS ...]
#                   [OUTPUT_DIR dir])
# Builds <name>.so (a MODULE with hidden symbols, only the descriptor table exported, and no
# undefined references) linked against zkpipe::sdk and LIBS, and copies its manifest beside it as
# <name>.plugin.toml. The default OUTPUT_DIR is ZKPIPE_PLUGIN_OUTPUT_DIR (the engine's build:
# build/plugins), else <build>/plugins; plugins built there are also installed into
# lib/zkpipe/plugins (component runtime).
# The same file serves the engine's build and the installed SDK (find_package(zkpipe) includes it
# from lib/zkpipe/cmake, beside plugin.map), so it names nothing in the source tree.
function(zkpipe_add_plugin)
  cmake_parse_arguments(P "" "NAME;MANIFEST;OUTPUT_DIR" "SOURCES;LIBS" ${ARGN})
  if(NOT P_NAME OR NOT P_SOURCES)
    message(FATAL_ERROR "zkpipe_add_plugin: NAME and SOURCES are required")
  endif()
  set(default_dir ${ZKPIPE_PLUGIN_OUTPUT_DIR})
  if(NOT default_dir)
    set(default_dir ${CMAKE_BINARY_DIR}/plugins)
  endif()
  if(NOT P_OUTPUT_DIR)
    set(P_OUTPUT_DIR ${default_dir})
  endif()
  set(version_script ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/plugin.map)
  add_library(${P_NAME} MODULE ${P_SOURCES})
  set_target_properties(${P_NAME} PROPERTIES PREFIX "" OUTPUT_NAME ${P_NAME}
                        LIBRARY_OUTPUT_DIRECTORY ${P_OUTPUT_DIR}
                        CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
  target_link_libraries(${P_NAME} PRIVATE zkpipe::sdk ${P_LIBS})
  target_link_options(${P_NAME} PRIVATE -Wl,--version-script=${version_script})
  set_property(TARGET ${P_NAME} APPEND PROPERTY LINK_DEPENDS ${version_script})
  # Under the sanitizers the runtime comes from the executable, so a plugin has undefined
  # references until it is loaded (ZKPIPE_SDK_SANITIZED: an SDK installed from such a build).
  if(NOT ZKPIPE_SANITIZE AND NOT ZKPIPE_SANITIZE_THREAD AND NOT ZKPIPE_SDK_SANITIZED)
    target_link_options(${P_NAME} PRIVATE -Wl,--no-undefined)
  endif()
  if(P_MANIFEST)  # (only the loader's tests build a plugin without one)
    configure_file(${P_MANIFEST} ${P_OUTPUT_DIR}/${P_NAME}.plugin.toml COPYONLY)
  endif()
  if(P_OUTPUT_DIR STREQUAL default_dir)
    install(TARGETS ${P_NAME} LIBRARY DESTINATION lib/zkpipe/plugins COMPONENT runtime)
    install(FILES ${P_MANIFEST} DESTINATION lib/zkpipe/plugins RENAME ${P_NAME}.plugin.toml
            COMPONENT runtime)
  endif()
endfunction()
