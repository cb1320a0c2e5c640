/* lg_errors: a growing list of "path: problem" lines, capped so hostile input cannot flood it. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llmgate/config.h"

#define LG_ERRORS_MAX 100

/* Appends one owned line; drops it silently when memory runs out. */
static void append(lg_errors *e, char *line)
{
    char **items = realloc(e->items, (e->n + 1) * sizeof *items);
    if (!items) {
        free(line);
        return;
    }
    e->items = items;
    e->items[e->n++] = line;
}

void lg_errors_add(lg_errors *e, const char *fmt, ...)
{
    if (!e || e->n > LG_ERRORS_MAX)
        return;
    if (e->n == LG_ERRORS_MAX) {
        char *more = strdup("too many problems; the rest are not shown");
        if (more)
            append(e, more);
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    char *line = NULL;
    int r = vasprintf(&line, fmt, ap);
    va_end(ap);
    if (r < 0)
        return;
    append(e, line);
}

void lg_errors_free(lg_errors *e)
{
    if (!e)
        return;
    for (size_t i = 0; i < e->n; i++)
        free(e->items[i]);
    free(e->items);
    e->items = NULL;
    e->n = 0;
}
