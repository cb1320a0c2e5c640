/* llmgate route: a dry run of the routing rules ("routes") on a request body: which rule it takes and what
 * would be sent (provider, URL, model, body), or the local answer; nothing is sent. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/commands.h"
#include "gate/body_model.h"
#include "llmgate/limiter.h"
#include "llmgate/route.h"
#include "llmgate/translate.h"

#define HEADERS_MAX 16

typedef struct {
    const char *names[HEADERS_MAX];
    int n;
} header_set;

static bool has_header(const void *ctx, const char *name)
{
    const header_set *h = ctx;
    for (int i = 0; i < h->n; i++)
        if (!strcasecmp(h->names[i], name))
            return true;
    return false;
}

static int usage(FILE *f, int rc)
{
    fputs("usage: llmgate route [--config FILE] [--provider NAME] [--program NAME] [--header NAME]... FILE\n", f);
    return rc;
}

/* The base URL of provider p (its upstream, else its first host over https). */
static void base_of(const lg_provider *p, char *buf, size_t cap)
{
    if (p->upstream)
        snprintf(buf, cap, "%s", p->upstream);
    else
        snprintf(buf, cap, "https://%s", p->n_hosts ? p->hosts[0] : "(no host)");
    size_t n = strlen(buf);
    while (n > 0 && buf[n - 1] == '/')
        buf[--n] = '\0';
}

/* What would be sent to provider to for a request in the host's dialect (model: the model it goes as). */
static int show_send(const lg_provider *host, const lg_provider *to, const char *body, size_t len, const char *model)
{
    char base[512];
    base_of(to, base, sizeof base);
    const char *as = model[0] ? lg_provider_map_model(to, model) : NULL;
    if (to->dialect == host->dialect) {
        size_t out_len = 0;
        char *out = as ? lg_body_with_model(body, len, as, &out_len) : NULL;
        printf("send: %s%s (provider %s, the program's path)\nmodel: %s\nbody: %.*s\n", base,
               to == host ? "" : " instead of the program's host", to->name, as ? as : "(none)",
               (int)(out ? out_len : len), out ? out : body);
        free(out);
        return 0;
    }
    lg_tr_dialect from, dest;
    lg_tr_request tr = {0};
    lg_tr_request_opts opts = {.model = as};
    lg_tr_status st = LG_TR_MALFORMED;
    if (lg_tr_dialect_of(host->dialect, &from) && lg_tr_dialect_of(to->dialect, &dest))
        st = lg_tr_request_translate(from, dest, body, len, &opts, &tr);
    char path[512];
    if (st == LG_TR_OK && !lg_tr_path(dest, as, tr.stream, path, sizeof path)) {
        st = LG_TR_REFUSED;
        snprintf(tr.reason, sizeof tr.reason, "no %s path for the model", lg_tr_dialect_name(dest));
    }
    if (st != LG_TR_OK) {
        printf("answer: 400 llmgate: the request cannot be sent to %s: %s\n", to->name, tr.reason);
        free(tr.body);
        return 0;
    }
    printf("send: POST %s%s (provider %s, translated %s -> %s%s)\nmodel: %s\nbody: %s\n", base, path, to->name,
           lg_dialect_name(host->dialect), lg_dialect_name(to->dialect),
           dest == LG_TR_ANTHROPIC ? ", " LG_TR_ANTHROPIC_VERSION : "", as ? as : "(none)", tr.body);
    free(tr.body);
    return 0;
}

/* Prints the route a request body takes on cfg, called through provider host. */
static int dry_run(const lg_config *cfg, const lg_provider *host, const char *body, size_t len, const char *program,
                   const header_set *hs)
{
    lg_estimate e;
    lg_estimate_scan(host->dialect, body, len, &e);
    char model[LG_MODEL_MAX];
    snprintf(model, sizeof model, "%s", e.model);
    lg_route_input in = {.model = model, .prompt_tokens = e.text, .program = program, .has_header = has_header,
                         .ctx = hs};
    printf("provider: %s (%s dialect)\nrequest model: %s\nprompt tokens (estimated): %lld\n", host->name,
           lg_dialect_name(host->dialect), model[0] ? model : "(none)", (long long)e.text);
    int i = lg_route_find(cfg, &in);
    if (i < 0) {
        printf("rule: none\n");
        return show_send(host, host, body, len, model);
    }
    const lg_route *r = &cfg->routes[i];
    char what[512];
    lg_route_describe(r, what, sizeof what);
    printf("rule: routes[%d] (%s)\n", i, what);
    if (r->refuse) {
        printf("answer: 403 llmgate: refused by routes[%d]: %s\n", i, r->refuse);
        return 0;
    }
    if (r->set_model)
        snprintf(model, sizeof model, "%s", r->set_model);
    const lg_provider *to = r->to ? lg_config_provider(cfg, r->to) : host;
    return show_send(host, to ? to : host, body, len, model);
}

int lg_cmd_route(int argc, char **argv)
{
    const char *config = NULL, *provider = "openai", *program = "", *file = NULL;
    header_set hs = {.n = 0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool has_value = i + 1 < argc;
        if (!strcmp(a, "--config") && has_value)
            config = argv[++i];
        else if (!strcmp(a, "--provider") && has_value)
            provider = argv[++i];
        else if (!strcmp(a, "--program") && has_value)
            program = argv[++i];
        else if (!strcmp(a, "--header") && has_value && hs.n < HEADERS_MAX)
            hs.names[hs.n++] = argv[++i];
        else if (!file && (a[0] != '-' || !strcmp(a, "-")))
            file = a;
        else
            return usage(stderr, 2);
    }
    if (!file)
        return usage(stderr, 2);
    lg_errors errs = {0};
    lg_config *cfg = lg_config_load(config, &errs);
    for (size_t i = 0; i < errs.n; i++)
        fprintf(stderr, "%s\n", errs.items[i]);
    lg_errors_free(&errs);
    if (!cfg)
        return 1;
    const lg_provider *host = lg_config_provider(cfg, provider);
    FILE *f = !strcmp(file, "-") ? stdin : fopen(file, "re");
    char *body = NULL;
    size_t cap = 0;
    ssize_t len = f ? getdelim(&body, &cap, '\0', f) : -1;
    if (f && f != stdin)
        fclose(f);
    int rc = 1;
    if (!host || host->dialect == LG_DIALECT_NONE)
        fprintf(stderr, "llmgate: route: no provider with a dialect named \"%s\"\n", provider);
    else if (len < 0)
        fprintf(stderr, "llmgate: route: cannot read %s\n", file);
    else
        rc = dry_run(cfg, host, body, (size_t)len, program, &hs);
    free(body);
    lg_config_free(cfg);
    return rc;
}
