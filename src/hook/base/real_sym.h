/* Finding the real function behind an interposed symbol: dlsym(RTLD_NEXT) first; then the given
 * libraries, only when they are already loaded (RTLD_NOLOAD: never pulls a library into the host). */
#ifndef LLMGATE_HOOK_BASE_REAL_SYM_H
#define LLMGATE_HOOK_BASE_REAL_SYM_H

#include <stddef.h>

/* The address of name, or NULL. version: a symbol version to ask the libraries for with dlvsym (NULL:
 * any). libs: sonames tried in order. Preserves errno. */
void *lg_real_sym(const char *name, const char *version, const char *const *libs, size_t n_libs);

#endif
