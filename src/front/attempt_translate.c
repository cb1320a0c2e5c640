/* The translation of an attempt's response (see attempt_translate.h). */
#include <time.h>

#include "front/attempt_translate.h"

bool lg_attempt_tr_start(lg_attempt_tr *t, lg_dialect host, lg_dialect target, const lg_translation *tr)
{
    lg_attempt_tr_free(t);
    if (!tr)
        return true;
    if (!lg_tr_dialect_of(target, &t->target) || !lg_tr_dialect_of(host, &t->host))
        return false;
    lg_tr_stream_opts o = {.resp = {.created = (int64_t)time(NULL)}, .include_usage = tr->include_usage};
    t->stream = lg_tr_stream_new(t->target, t->host, &o);
    t->on = t->stream != NULL;
    return t->on;
}

void lg_attempt_tr_free(lg_attempt_tr *t)
{
    lg_tr_stream_free(t->stream);
    t->stream = NULL;
    t->on = false;
}
