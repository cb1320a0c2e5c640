/* Resolution of real symbols (see real_sym.h). */
#include <dlfcn.h>
#include <errno.h>

#include "hook/base/real_sym.h"

void *lg_real_sym(const char *name, const char *version, const char *const *libs, size_t n_libs)
{
    int saved = errno;
    void *p = dlsym(RTLD_NEXT, name);
    for (size_t i = 0; i < n_libs && !p; i++) {
        void *h = dlopen(libs[i], RTLD_NOLOAD | RTLD_LAZY);
        if (h) {
            p = version ? dlvsym(h, name, version) : dlsym(h, name);
            dlclose(h);
        }
    }
    errno = saved;
    return p;
}
