# ctxkit_copy_files(TARGET DIR FILE...): a target, built with `all`, that
# copies each FILE into DIR when it changes (the pure-language files of the
# Python and Node packages, next to their native extension).
function(ctxkit_copy_files target dir)
  set(copies "")
  foreach(src ${ARGN})
    get_filename_component(name ${src} NAME)
    add_custom_command(OUTPUT ${dir}/${name}
      COMMAND ${CMAKE_COMMAND} -E copy_if_different ${src} ${dir}/${name}
      DEPENDS ${src} VERBATIM)
    list(APPEND copies ${dir}/${name})
  endforeach()
  add_custom_target(${target} ALL DEPENDS ${copies})
endfunction()
