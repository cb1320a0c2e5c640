/* Which routing rule a request takes (see route.h). */
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "llmgate/route.h"

/* True when value is pattern or matches it as a glob. */
static bool matches(const char *pattern, const char *value)
{
    return !strcmp(pattern, value) || fnmatch(pattern, value, 0) == 0;
}

/* True when every condition of r holds for in. */
static bool holds(const lg_route *r, const lg_route_input *in)
{
    if (r->model && !matches(r->model, in->model ? in->model : ""))
        return false;
    if (r->max_prompt_tokens >= 0 && in->prompt_tokens > r->max_prompt_tokens)
        return false;
    if (r->program && !matches(r->program, in->program ? in->program : ""))
        return false;
    return !r->header || (in->has_header && in->has_header(in->ctx, r->header));
}

int lg_route_find(const lg_config *c, const lg_route_input *in)
{
    for (size_t i = 0; i < c->n_routes; i++)
        if (holds(&c->routes[i], in))
            return (int)i;
    return -1;
}

void lg_route_describe(const lg_route *r, char *buf, size_t cap)
{
    char tokens[32] = "";
    if (r->max_prompt_tokens >= 0)
        snprintf(tokens, sizeof tokens, "%lld", (long long)r->max_prompt_tokens);
    int n = snprintf(buf, cap, "match model=%s max_prompt_tokens=%s program=%s header=%s ->",
                     r->model ? r->model : "*", tokens[0] ? tokens : "*", r->program ? r->program : "*",
                     r->header ? r->header : "*");
    if (n < 0 || (size_t)n >= cap)
        return;
    if (r->refuse)
        snprintf(buf + n, cap - (size_t)n, " refuse");
    else
        snprintf(buf + n, cap - (size_t)n, "%s%s%s%s", r->set_model ? " set model=" : "",
                 r->set_model ? r->set_model : "", r->to ? " to " : "", r->to ? r->to : "");
}
