/* Routing rules ("routes" in the configuration): which rule a request takes. Pure: the caller gathers
 * what a rule can match on. */
#ifndef LLMGATE_ROUTE_H
#define LLMGATE_ROUTE_H

#include <stdbool.h>
#include <stdint.h>

#include "llmgate/config.h"

typedef struct {
    const char *model;     /* the request's model ("" when it names none) */
    int64_t prompt_tokens; /* its estimated prompt (lg_estimate_scan's text) */
    const char *program;   /* the host program's name ("" when unknown) */
    /* True when the request carries header name (any case); NULL: it carries none. */
    bool (*has_header)(const void *ctx, const char *name);
    const void *ctx;
} lg_route_input;

/* The index of the first route of c whose every condition holds for in (model and program: exact or
 * fnmatch(3) glob; max_prompt_tokens: at most; header: present), or -1 when none does. */
int lg_route_find(const lg_config *c, const lg_route_input *in);

/* One line describing route r's match and action (for logs and `llmgate route`), into buf. */
void lg_route_describe(const lg_route *r, char *buf, size_t cap);

#endif
