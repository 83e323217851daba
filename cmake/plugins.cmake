# zkpipe_add_plugin(NAME <name> MANIFEST <file.plugin.toml> SOURCES ... [OUTPUT_DIR dir])
# Builds <name>.so (a MODULE with hidden symbols and no undefined references) against the SDK
# only, and copies its manifest beside it as <name>.plugin.toml.
function(zkpipe_add_plugin)
  cmake_parse_arguments(P "" "NAME;MANIFEST;OUTPUT_DIR" "SOURCES;LIBS" ${ARGN})
  if(NOT P_OUTPUT_DIR)
    set(P_OUTPUT_DIR ${ZKPIPE_PLUGIN_OUTPUT_DIR})
  endif()
  add_library(${P_NAME} MODULE ${P_SOURCES})
  set_target_properties(${P_NAME} PROPERTIES PREFIX "" OUTPUT_NAME ${P_NAME}
                        LIBRARY_OUTPUT_DIRECTORY ${P_OUTPUT_DIR})
  target_link_libraries(${P_NAME} PRIVATE zkpipe::sdk ${P_LIBS})
  if(NOT ZKPIPE_SANITIZE)
    target_link_options(${P_NAME} PRIVATE -Wl,--no-undefined)
  endif()
  if(P_MANIFEST)
    configure_file(${P_MANIFEST} ${P_OUTPUT_DIR}/${P_NAME}.plugin.toml COPYONLY)
  endif()
  if(P_OUTPUT_DIR STREQUAL ZKPIPE_PLUGIN_OUTPUT_DIR)
    install(TARGETS ${P_NAME} LIBRARY DESTINATION lib/zkpipe/plugins COMPONENT runtime)
    install(FILES ${P_MANIFEST} DESTINATION lib/zkpipe/plugins RENAME ${P_NAME}.plugin.toml
            COMPONENT runtime)
  endif()
endfunction()
