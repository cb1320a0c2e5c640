/* Where the llmgate command finds libllmgate.so. */
#ifndef LLMGATE_CLI_LIBPATH_H
#define LLMGATE_CLI_LIBPATH_H

#include <stdbool.h>
#include <stddef.h>

/* The library path relative to the directory of the llmgate executable, in the installed layout
 * (PREFIX/bin/llmgate, PREFIX/lib/llmgate/libllmgate.so). */
#define LG_LIB_FROM_BIN "../lib/llmgate/libllmgate.so"

/* Finds libllmgate.so into out (an absolute, resolved path): $LLMGATE_LIB when set, else beside this
 * executable (the build tree), else LG_LIB_FROM_BIN from it (any install prefix, since it is found from
 * where the running executable is, not from where it was built for). False when none is readable or the
 * path does not fit. */
bool lg_cli_find_library(char *out, size_t size);

#endif
