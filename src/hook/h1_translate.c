/* Translated responses on the socket/TLS front end (see h1_translate.h). */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "hook/h1_translate.h"

bool lg_h1_tr_start(lg_h1_tr *t, lg_dialect host, lg_dialect target, const lg_translation *tr)
{
    lg_h1_tr_free(t);
    if (!tr)
        return true;
    if (!lg_tr_dialect_of(target, &t->target) || !lg_tr_dialect_of(host, &t->host))
        return false;
    lg_tr_stream_opts o = {.resp = {.created = (int64_t)time(NULL)}, .include_usage = tr->include_usage};
    t->stream = lg_tr_stream_new(t->target, t->host, &o);
    t->on = t->stream != NULL;
    return t->on;
}

void lg_h1_tr_free(lg_h1_tr *t)
{
    lg_tr_stream_free(t->stream);
    t->stream = NULL;
    t->on = false;
}

bool lg_h1_tr_headers(char *const *lines, size_t n, lg_emit_fn emit, void *ctx)
{
    static const char chunked[] = "Transfer-Encoding: chunked\r\n";
    for (size_t i = 0; i < n; i++) {
        const char *l = lines[i];
        if (!strncasecmp(l, "content-length:", 15) || !strncasecmp(l, "transfer-encoding:", 18))
            continue;
        if (i + 1 == n && !emit(ctx, chunked, sizeof chunked - 1))
            return false;
        if (!emit(ctx, l, strlen(l)))
            return false;
    }
    return true;
}
