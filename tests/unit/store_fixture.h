/* The fixture of the unit tests that drive the engine or admission with a real shared store
 * (test_admission, test_exchange, test_probe): a temporary directory that is also XDG_STATE_HOME (the
 * persisted cooldowns go there), a store file in it, a parsed config; all of it removed at teardown.
 * Included by one test file each: its functions are static. Include after <cmocka.h>. */
#ifndef LLMGATE_TESTS_STORE_FIXTURE_H
#define LLMGATE_TESTS_STORE_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llmgate/config.h"
#include "llmgate/gate.h"
#include "llmgate/store.h"

typedef struct {
    char dir[64];
    lg_store *store;     /* NULL until fixture_store */
    lg_config *cfg;      /* NULL until fixture_config */
    lg_gate_request req; /* a request the test sets up, if it needs one */
} fixture;

/* Makes the fixture's directory (/tmp/llmgate-NAME.XXXXXX) and points XDG_STATE_HOME at it. */
static inline int fixture_setup(void **state, const char *name)
{
    fixture *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    *state = f;
    snprintf(f->dir, sizeof f->dir, "/tmp/llmgate-%s.XXXXXX", name);
    if (!mkdtemp(f->dir))
        return -1;
    setenv("XDG_STATE_HOME", f->dir, 1);
    return 0;
}

/* Opens (once) the store file in the fixture's directory; NULL when it cannot. */
static inline lg_store *fixture_store(fixture *f)
{
    if (!f->store) {
        char path[128], err[256];
        snprintf(path, sizeof path, "%s/state.shm", f->dir);
        f->store = lg_store_open(path, err, sizeof err);
    }
    return f->store;
}

/* Parses json as the fixture's config (replacing one parsed before); fails the test when it is refused. */
static inline lg_config *fixture_config(fixture *f, const char *json)
{
    lg_errors errs = {0};
    lg_config_free(f->cfg);
    f->cfg = lg_config_parse(json, strlen(json), "test", false, &errs);
    if (!f->cfg)
        fail_msg("config: %s", errs.n ? errs.items[0] : "?");
    return f->cfg;
}

/* The provider called name in the fixture's config; fails the test when there is none. */
static inline const lg_provider *fixture_provider(const fixture *f, const char *name)
{
    for (size_t i = 0; f->cfg && i < f->cfg->n_providers; i++)
        if (!strcmp(f->cfg->providers[i].name, name))
            return &f->cfg->providers[i];
    fail_msg("no provider %s", name);
    return NULL;
}

/* Closes the store, frees the config and removes the directory. */
static inline int fixture_teardown(void **state)
{
    fixture *f = *state;
    if (!f)
        return 0;
    lg_store_close(f->store);
    lg_config_free(f->cfg);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
    int rc = f->dir[0] ? system(cmd) : 0;
    free(f);
    return rc == 0 ? 0 : -1;
}

#endif
