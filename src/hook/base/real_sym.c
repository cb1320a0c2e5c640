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

bool lg_real_fill(void *table, const lg_real_spec *spec)
{
    bool all = true;
    for (size_t i = 0; i < spec->n_entries; i++) {
        void **slot = (void **)((char *)table + spec->entries[i].offset);
        if (!*slot)
            *slot = lg_real_sym(spec->entries[i].symbol, spec->version, spec->libs, spec->n_libs);
        all &= *slot != NULL;
    }
    return all;
}

void lg_real_fill_retry(lg_real_retry *r, void *table, bool *complete, const lg_real_spec *spec)
{
    pthread_mutex_lock(&r->lock);
    *complete = lg_real_fill(table, spec);
    if (*complete)
        atomic_store(&r->done, true);
    pthread_mutex_unlock(&r->lock);
}
