/* llmgate reset [--config FILE] [PROVIDER[/ACCOUNT]]: clears cooldowns by hand, in the shared store and in
 * the cooldowns saved on disk, for every account, a provider's, or one account. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/commands.h"
#include "llmgate/clock.h"
#include "llmgate/spend.h"
#include "llmgate/store.h"
#include "store/shm.h"

/* One account slot matched by the filter. */
typedef struct {
    char provider[LG_NAME_MAX], account[LG_NAME_MAX], digest[LG_DIGEST_HEX];
    bool cooling; /* a cooldown was running or failures were counted */
} match;

typedef struct {
    const char *provider, *account; /* filter; NULL = any */
    match *v;
    size_t n, cap;
    bool oom;
    int64_t now;
} matches;

/* Visitor: records the slots the filter names (slots with corrupt names are skipped). */
static void collect(const char *provider, const char *account, const char *digest, const lg_account_slot *slot,
                    void *ctx)
{
    matches *m = ctx;
    if (!lg_cli_name_ok(provider, LG_NAME_MAX) || !lg_cli_name_ok(account, LG_NAME_MAX) ||
        !memchr(digest, '\0', LG_DIGEST_HEX) || (m->provider && strcmp(m->provider, provider)) ||
        (m->account && strcmp(m->account, account)))
        return;
    if (m->n == m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 16;
        match *v = realloc(m->v, cap * sizeof *v);
        if (!v) {
            m->oom = true;
            return;
        }
        m->v = v, m->cap = cap;
    }
    match *x = &m->v[m->n++];
    memcpy(x->provider, provider, LG_NAME_MAX);
    memcpy(x->account, account, LG_NAME_MAX);
    memcpy(x->digest, digest, LG_DIGEST_HEX);
    x->cooling = slot->state.cooldown_until_ms > m->now || slot->state.failures > 0;
}

/* Under the lock: the account is available again and its failure count starts over. */
static void clear(lg_provider_slot *p, lg_account_slot *const *accounts, size_t n, void *ctx)
{
    for (size_t i = 0; i < n; i++)
        memset(&accounts[i]->state, 0, sizeof accounts[i]->state);
}

static int usage(FILE *f)
{
    fputs("usage: llmgate reset [--config FILE] [PROVIDER[/ACCOUNT] | --budget NAME]\n", f);
    return f == stderr ? 2 : 0;
}

/* Clears the matches in store s and rewrites the saved cooldowns. Returns the exit status. */
static int reset_store(lg_store *s, matches *m, const char *what)
{
    if (lg_store_visit(s, collect, m) != 0 || m->oom) {
        fprintf(stderr, "llmgate: %s\n", m->oom ? "out of memory" : "the state store stayed locked; try again");
        return 1;
    }
    if (m->n == 0 && m->provider) {
        fprintf(stderr, "llmgate: no account %s in the state\n", what);
        return 1;
    }
    int rc = 0, cleared = 0;
    for (size_t i = 0; i < m->n; i++) {
        lg_account_ref ref = {.name = m->v[i].account, .digest = m->v[i].digest};
        if (lg_store_with(s, m->v[i].provider, &ref, 1, clear, NULL) != 0) {
            fprintf(stderr, "llmgate: %s/%s: the state store stayed locked\n", m->v[i].provider, m->v[i].account);
            rc = 1;
        } else if (m->v[i].cooling) {
            printf("%s/%s: cooldown cleared\n", m->v[i].provider, m->v[i].account);
            cleared++;
        }
    }
    if (lg_store_save_cooldowns(s) != 0 && lg_store_has_saved_cooldowns()) {
        fprintf(stderr, "llmgate: could not rewrite the saved cooldowns: %s\n", strerror(errno));
        rc = 1;
    }
    if (!cleared && rc == 0)
        printf("no cooldown to clear\n");
    return rc;
}

/* Lifts the budget called name for the rest of its period. */
static int lift_budget(const char *config, const char *name)
{
    lg_spend *s = lg_cli_spend_open(config, false);
    bool ok = s && lg_spend_lift(s, name, lg_now_ms());
    lg_spend_close(s);
    if (!ok) {
        fprintf(stderr, "llmgate: no budget %s in the spend state\n", name);
        return 1;
    }
    printf("budget %s lifted until its period ends\n", name);
    return 0;
}

int lg_cmd_reset(int argc, char **argv)
{
    const char *config = NULL, *target = NULL, *budget = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--config") && i + 1 < argc)
            config = argv[++i];
        else if (!strcmp(argv[i], "--budget") && i + 1 < argc)
            budget = argv[++i];
        else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
            return usage(stdout);
        else if (argv[i][0] == '-' || target)
            return usage(stderr);
        else
            target = argv[i];
    }
    if (budget)
        return target ? usage(stderr) : lift_budget(config, budget);
    matches m = {.now = lg_now_ms()};
    char filter[2 * LG_NAME_MAX + 2] = "";
    if (target) {
        if (strlen(target) >= sizeof filter)
            return usage(stderr);
        strcpy(filter, target);
        char *slash = strchr(filter, '/');
        if (slash)
            *slash = '\0', m.account = slash + 1;
        m.provider = filter;
        if (!*m.provider || (m.account && !*m.account))
            return usage(stderr);
    }
    char *path, file[4096];
    struct stat st;
    if (!lg_cli_store_path(config, "reset", &path))
        return 1;
    int rc = 1;
    if (!lg_store_resolve_path(path, file, sizeof file)) {
        fprintf(stderr, "llmgate: state file path too long\n");
    } else if (lstat(file, &st) != 0 && errno == ENOENT && !lg_store_has_saved_cooldowns()) {
        printf("no llmgate state yet\n");
        rc = 0;
    } else {
        char err[512] = "";
        lg_store *s = lg_store_open(path, err, sizeof err);
        if (!s)
            fprintf(stderr, "%s\n", err);
        else {
            rc = reset_store(s, &m, target);
            lg_store_close(s);
        }
    }
    free(path);
    free(m.v);
    fflush(stdout);
    return rc;
}
