# `make install` / `cmake --install`: the public headers, the shipped layer
# libraries with the umbrella target, the ctxkit binary, a CMake package
# (find_package(ctxkit CONFIG) -> ctxkit::ctxkit) and a pkg-config file
# (ctxkit.pc; the libraries are static, so link with --static). Included
# from the top-level CMakeLists.txt after every layer is declared.

include(CMakePackageConfigHelpers)

set(ctxkit_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/ctxkit)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/ctxkit
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS ${ctxkit_shipped_targets} ctxkit EXPORT ctxkitTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS ctxkit_bin RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# `ctxkit serve` execs it from here (src/cli/serve_command.h).
install(TARGETS ctxkit_serve_bin
        RUNTIME DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/ctxkit)
install(EXPORT ctxkitTargets NAMESPACE ctxkit:: DESTINATION ${ctxkit_cmake_dir})

configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/ctxkitConfig.cmake.in
  ${PROJECT_BINARY_DIR}/ctxkitConfig.cmake
  INSTALL_DESTINATION ${ctxkit_cmake_dir})
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/ctxkitConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/ctxkitConfig.cmake
              ${PROJECT_BINARY_DIR}/ctxkitConfigVersion.cmake
        DESTINATION ${ctxkit_cmake_dir})

# ctxkit.pc, relocatable: the prefix is found from the file's own place.
# Libs lists the layers top-down so a static link resolves each one's
# symbols from the layers below it.
set(ctxkit_pc_libs "")
foreach(layer IN LISTS ctxkit_shipped_layers)
  string(PREPEND ctxkit_pc_libs " -lctxkit_${layer}")
endforeach()
file(RELATIVE_PATH ctxkit_pc_prefix
     /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
string(REGEX REPLACE "/$" "" ctxkit_pc_prefix "${ctxkit_pc_prefix}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/ctxkit.pc.in
               ${PROJECT_BINARY_DIR}/ctxkit.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/ctxkit.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# tests/install/run.sh installs this build into a temporary prefix and
# builds and runs a small program against it, through find_package and
# through pkg-config. A sanitizer build's libraries need the same flags in
# the program that links them.
if(CTXKIT_BUILD_TESTS)
  set(ctxkit_consumer_flags "")
  if(CTXKIT_SANITIZE)
    set(ctxkit_consumer_flags "-fsanitize=address,undefined")
  endif()
  add_test(NAME install_consumer
           COMMAND bash ${PROJECT_SOURCE_DIR}/tests/install/run.sh
                   ${PROJECT_BINARY_DIR} "${ctxkit_consumer_flags}")
  set_tests_properties(install_consumer PROPERTIES TIMEOUT 120)
endif()
