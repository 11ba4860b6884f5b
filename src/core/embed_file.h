// CTXKIT_EMBED_FILE(sym, path): the bytes of the file at `path` (a string
// literal, an absolute path the build gives) as a read-only array between
// the hidden symbols sym_begin and sym_end. The assembler copies the bytes
// verbatim (.incbin), which builds far faster than a generated C++ array
// literal of a few megabytes. Declare the symbols to use them:
//
//   CTXKIT_EMBED_FILE(my_data, MY_DATA_PATH);
//   extern "C" const unsigned char my_data_begin[], my_data_end[];
//
// The including source must be rebuilt when the file changes (CMake:
// OBJECT_DEPENDS).

#ifndef CTXKIT_CORE_EMBED_FILE_H_
#define CTXKIT_CORE_EMBED_FILE_H_

#define CTXKIT_EMBED_FILE(sym, path)      \
  __asm__(".pushsection .rodata." #sym    \
          ",\"a\",@progbits\n"            \
          ".balign 16\n"                  \
          ".globl " #sym                  \
          "_begin\n"                      \
          ".hidden " #sym "_begin\n" #sym \
          "_begin:\n"                     \
          ".incbin \"" path               \
          "\"\n"                          \
          ".globl " #sym                  \
          "_end\n"                        \
          ".hidden " #sym "_end\n" #sym   \
          "_end:\n"                       \
          ".popsection\n")

#endif  // CTXKIT_CORE_EMBED_FILE_H_
