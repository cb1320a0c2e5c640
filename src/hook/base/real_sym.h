/* Finding the real functions behind interposed symbols: dlsym(RTLD_NEXT) first; then the given libraries,
 * only when they are already loaded (RTLD_NOLOAD: never pulls a library into the host).
 *
 * A table of real functions is written once, as a list LIST(X) of X(field, symbol, ret, params) items (the
 * shape of proxychains-ng's SETUP_SYM list): LG_REAL_FIELD expands it into the table's members, and
 * LG_REAL_ENTRY into the entries lg_real_fill resolves them from. */
#ifndef LLMGATE_HOOK_BASE_REAL_SYM_H
#define LLMGATE_HOOK_BASE_REAL_SYM_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

/* A member of the table: ret (*field) params, the real function symbol. */
#define LG_REAL_FIELD(field, symbol, ret, params) ret(*field) params;

/* Where the real function symbol goes in a table of type LG_REAL_TABLE (which the expanding file defines). */
#define LG_REAL_ENTRY(field, symbol, ret, params) {#symbol, offsetof(LG_REAL_TABLE, field)},

typedef struct {
    const char *symbol;
    size_t offset; /* of its function pointer in the table */
} lg_real_entry;

/* A table of real functions: its entries, and where they are looked for after dlsym(RTLD_NEXT). */
typedef struct {
    const lg_real_entry *entries;
    size_t n_entries;
    const char *version;      /* the symbol version to ask libs for with dlvsym (NULL: any) */
    const char *const *libs;  /* sonames tried in order */
    size_t n_libs;
} lg_real_spec;

/* A table resolved again on each use until every member is found (its library may be loaded later). */
typedef struct {
    pthread_mutex_t lock;
    atomic_bool done; /* every member found: the table is final */
} lg_real_retry;
#define LG_REAL_RETRY_INIT {PTHREAD_MUTEX_INITIALIZER, false}

/* The address of name, or NULL. version: a symbol version to ask the libraries for with dlvsym (NULL:
 * any). libs: sonames tried in order. Preserves errno. */
void *lg_real_sym(const char *name, const char *version, const char *const *libs, size_t n_libs);

/* Resolves every member of table that is still NULL (lg_real_sym); true when none is left NULL. Preserves
 * errno. */
bool lg_real_fill(void *table, const lg_real_spec *spec);

/* lg_real_fill under r's lock, *complete set to its answer (a member of table), r->done once true. */
void lg_real_fill_retry(lg_real_retry *r, void *table, bool *complete, const lg_real_spec *spec);

#endif
