# Explore layer (src/explore/): peek, search and len over stored variables
# by handle (include/ctxkit/explore.h). Included from the top-level
# CMakeLists.txt after layer_text.cmake.
#
# Regex search uses RE2 (Debian libre2-dev: linear-time matching). All RE2
# use stays inside src/explore/; src/text/ only defines the matcher
# interface and the literal fast path.

find_package(PkgConfig REQUIRED)
pkg_check_modules(RE2 REQUIRED IMPORTED_TARGET re2)
ctxkit_dep(ctxkit_re2 PkgConfig::RE2 libre2.a)

ctxkit_add_layer(explore DEPS store text
                 LIBS ${ctxkit_re2} nlohmann_json::nlohmann_json
                 HEADERS explore.h)
