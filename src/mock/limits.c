/* Exact sliding windows per key (see limits.h). */
#include <stdlib.h>
#include <string.h>

#include "mock/limits.h"

void mock_window_init(mock_window *w)
{
    memset(w, 0, sizeof *w);
}

void mock_window_free(mock_window *w)
{
    free(w->items);
    mock_window_init(w);
}

void mock_window_clear(mock_window *w)
{
    w->head = w->len = 0;
    w->tokens = 0;
    w->max_in_window = 0;
}

/* Drops the admissions that are no longer inside the window ending at now. */
static void prune(mock_window *w, int64_t window_ms, int64_t now)
{
    while (w->len && now - w->items[w->head].at_ms >= window_ms) {
        w->tokens -= w->items[w->head].tokens;
        w->head++;
        w->len--;
    }
    if (!w->len)
        w->head = 0;
}

/* Appends one admission, compacting or growing the array as needed (out of memory: not recorded). */
static void push(mock_window *w, int64_t now, int64_t tokens)
{
    if (w->head + w->len == w->cap) {
        if (w->head > w->cap / 2) {
            memmove(w->items, w->items + w->head, w->len * sizeof *w->items);
            w->head = 0;
        } else {
            size_t cap = w->cap ? w->cap * 2 : 64;
            mock_admission *items = realloc(w->items, cap * sizeof *items);
            if (!items)
                return;
            w->items = items;
            w->cap = cap;
        }
    }
    w->items[w->head + w->len] = (mock_admission){now, tokens};
    w->len++;
    w->tokens += tokens;
    if ((int64_t)w->len > w->max_in_window)
        w->max_in_window = (int64_t)w->len;
}

/* Time from now until the oldest live admission leaves the window (0 when the window is empty). */
static int64_t until_oldest_leaves(const mock_window *w, int64_t window_ms, int64_t now)
{
    return w->len ? w->items[w->head].at_ms + window_ms - now : 0;
}

/* Time from now until enough admissions have left the window for `tokens` more to fit under tpm. */
static int64_t until_tokens_fit(const mock_window *w, int64_t window_ms, int64_t tpm, int64_t now,
                                int64_t tokens)
{
    int64_t used = w->tokens;
    for (size_t i = 0; i < w->len && used + tokens > tpm; i++) {
        const mock_admission *a = &w->items[w->head + i];
        used -= a->tokens;
        if (used + tokens <= tpm)
            return a->at_ms + window_ms - now;
    }
    return 0;
}

/* What is left of limit once used is taken, never negative. */
static int64_t remaining(int64_t limit, int64_t used)
{
    return used < limit ? limit - used : 0;
}

void mock_window_admit(mock_window *w, const mock_limits *lim, int64_t now, int64_t tokens, bool force,
                       mock_verdict *v)
{
    prune(w, lim->window_ms, now);
    memset(v, 0, sizeof *v);
    v->used_requests = (int64_t)w->len;
    v->used_tokens = w->tokens;
    v->requested_tokens = tokens;
    v->retry_after_ms = -1;
    if (lim->tpm > 0 && tokens > lim->tpm) {
        v->kind = MOCK_TOO_LARGE;
    } else if (lim->rpm > 0 && v->used_requests >= lim->rpm) {
        v->kind = MOCK_OVER_REQUESTS;
        v->retry_after_ms = until_oldest_leaves(w, lim->window_ms, now);
    } else if (lim->tpm > 0 && v->used_tokens + tokens > lim->tpm) {
        v->kind = MOCK_OVER_TOKENS;
        v->retry_after_ms = until_tokens_fit(w, lim->window_ms, lim->tpm, now, tokens);
    } else {
        v->kind = MOCK_ADMITTED;
    }
    if (v->kind == MOCK_ADMITTED || force)
        push(w, now, tokens);
    v->remaining_requests = lim->rpm > 0 ? remaining(lim->rpm, (int64_t)w->len) : -1;
    v->remaining_tokens = lim->tpm > 0 ? remaining(lim->tpm, w->tokens) : -1;
    v->reset_requests_ms = until_oldest_leaves(w, lim->window_ms, now);
    v->reset_tokens_ms = v->kind == MOCK_OVER_TOKENS ? v->retry_after_ms : v->reset_requests_ms;
}
