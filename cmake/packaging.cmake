# The install layout beyond the binaries, plugins and SDK (configs, the daemon's config, the
# systemd unit) and the Debian package. `cmake --install build --prefix P` lays out P/bin,
# P/lib/zkpipe/plugins, P/share/zkpipe/configs, P/include/zkpipe (component sdk),
# P/etc/zkpipe/zkpipe.yaml and P/lib/systemd/system/zkpipe.service; with the prefix /usr (the
# package's) those last two go to /etc/zkpipe and /lib/systemd/system instead (GNUInstallDirs'
# rule for /usr, and Debian 12's systemd.pc). `cpack -G DEB` in the build dir writes
# zkpipe_<version>_<arch>.deb; tests/server/package_test.sh checks it.

# Every shipped config, zkpipe.yaml included, as examples. The variants' `params.dir: ../params`
# is relative to the file, which would be share/zkpipe/params here: copy one and set params.dir.
file(GLOB ZKPIPE_SHIPPED_CONFIGS CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/configs/*.yaml)
install(FILES ${ZKPIPE_SHIPPED_CONFIGS} ${PROJECT_SOURCE_DIR}/configs/README.md
        DESTINATION share/zkpipe/configs COMPONENT runtime)

# zkpipe_install_system_file(FILE DIR): FILE into /DIR when the install prefix is /usr, else into
# <prefix>/DIR, decided when installing (so `cmake --install --prefix /tmp/x` never writes to
# /etc); DESTDIR, which cpack sets, applies in both cases.
function(zkpipe_install_system_file file dir)
  install(CODE "
    if(CMAKE_INSTALL_PREFIX MATCHES \"^/usr/*$\")
      set(zkpipe_system_root \"\")
    else()
      set(zkpipe_system_root \"\${CMAKE_INSTALL_PREFIX}\")
    endif()
    file(INSTALL DESTINATION \"\${zkpipe_system_root}/${dir}\" TYPE FILE FILES \"${file}\")
  " COMPONENT runtime)
endfunction()
# The daemon's config (a conffile of the package) and its unit, which name /usr/bin/zkpipe and
# /etc/zkpipe/zkpipe.yaml: the package's paths.
zkpipe_install_system_file(${PROJECT_SOURCE_DIR}/configs/zkpipe.yaml etc/zkpipe)
zkpipe_install_system_file(${PROJECT_SOURCE_DIR}/configs/systemd/zkpipe.service lib/systemd/system)

# /usr/share/doc/zkpipe as Debian policy wants it: the copyright file and the changelog,
# compressed with gzip -9n (no name or time stamp, so the package is reproducible).
set(ZKPIPE_CHANGELOG_GZ ${PROJECT_BINARY_DIR}/changelog.gz)
add_custom_command(OUTPUT ${ZKPIPE_CHANGELOG_GZ}
  COMMAND gzip -9nc ${PROJECT_SOURCE_DIR}/cmake/debian/changelog > ${ZKPIPE_CHANGELOG_GZ}
  DEPENDS ${PROJECT_SOURCE_DIR}/cmake/debian/changelog VERBATIM)
add_custom_target(zkpipe_changelog ALL DEPENDS ${ZKPIPE_CHANGELOG_GZ})
install(FILES ${PROJECT_SOURCE_DIR}/cmake/debian/copyright ${ZKPIPE_CHANGELOG_GZ}
        DESTINATION share/doc/zkpipe COMPONENT runtime)

# ---- the Debian package (CPack DEB) ---------------------------------------------------------
# One package, zkpipe, with the components runtime (binaries, plugins, configs, unit) and sdk
# (the few headers a plugin author builds against; small enough not to need a zkpipe-dev).
# Only these components are packaged: an install rule of another component stays out.
set(ZKPIPE_PACKAGE_MAINTAINER "zkpipe maintainers <maintainers@users.noreply.a-seed-b3570e82.example>"
    CACHE STRING "Maintainer field of the Debian package")
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME zkpipe)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "pipelined Groth16 prover for storage proofs (PoRep, SnapDeals)")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_COMPONENTS_ALL runtime sdk)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_GROUPING ALL_COMPONENTS_IN_ONE)
# Stripped, as Debian ships binaries (RelWithDebInfo's debug info is most of their size); the
# build dir keeps the unstripped ones.
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_PACKAGE_NAME zkpipe)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # zkpipe_0.1.0_amd64.deb
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${ZKPIPE_PACKAGE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# The extended description; CPack puts CPACK_PACKAGE_DESCRIPTION_SUMMARY above it.
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "\
zkpipe proves Groth16 (BLS12-381) proofs of StackedDRG-style PoRep and SnapDeals-style
sector updates through a pipeline of synthesis, compute and finalizer workers under one
memory budget, on the CPU or on CUDA GPUs, with pluggable host-memory backends.
.
This package has zkpipe (prove, bench, plan and the daemon, zkpipe serve, run by
zkpipe.service), zkpipe-tool (validate plugins and configs, check the system), the plugins
in /usr/lib/zkpipe/plugins, example configs and the plugin SDK headers.")
# The shared libraries' packages by dpkg-shlibdeps, plus what is used at run time without
# being linked: the status panel serves /usr/share/javascript/chart.js/chart.min.js, and
# postinst creates the zkpipe user with adduser.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libjs-chart.js, adduser")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
    ${PROJECT_SOURCE_DIR}/cmake/debian/conffiles ${PROJECT_SOURCE_DIR}/cmake/debian/postinst
    ${PROJECT_SOURCE_DIR}/cmake/debian/prerm ${PROJECT_SOURCE_DIR}/cmake/debian/postrm)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
include(CPack)
