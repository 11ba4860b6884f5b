# Notes layer (src/notes/): agent context notes, markdown files with YAML
# frontmatter that other programs read, indexed into the store and a
# full-text index (include/ctxkit/notes.h, docs/notes.md). Included from the
# top-level CMakeLists.txt after layer_index.cmake (it reuses the index
# layer's query-term splitting).
#
# The frontmatter is parsed with yaml-cpp (Debian libyaml-cpp-dev, target
# `yaml-cpp`).

find_package(yaml-cpp REQUIRED)
ctxkit_dep(ctxkit_yaml yaml-cpp libyaml-cpp.a)

ctxkit_add_layer(notes DEPS store index
                 LIBS ${ctxkit_yaml} ${ctxkit_sqlite} nlohmann_json::nlohmann_json
                 HEADERS notes.h)
