/* Rate-limit header families in every spelling providers use (the names and values are read by
 * rl_header.c, which says which spellings and forms): the headers of one family (one key) are gathered into
 * one lg_rl_family, exhausted when its remaining count is 0, its status "rejected", or a type header names
 * the limit hit (its window then the one the type's words say). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "classify/dialects.h"
#include "classify/rl_header.h"

/* A reset value (rl_header.c): a duration or seconds from now, Unix seconds or ms, or an RFC 3339 / HTTP
 * date. The family's reset is cleared first, whether the value reads or not. */
static bool parse_reset(const char *v, lg_rl_family *f)
{
    int64_t x;
    lg_rlh_reset_form form = lg_rlh_reset(v, &x);
    f->reset_ms = f->reset_at_ms = LG_NO_HINT;
    switch (form) {
    case LG_RLH_DURATION:
        f->reset_ms = x;
        return true;
    case LG_RLH_SECONDS:
        if (x >= 1000000000000000LL) /* Unix ms */
            f->reset_at_ms = x / 1000;
        else if (x >= 1000000000000LL) /* Unix seconds */
            f->reset_at_ms = x;
        else
            f->reset_ms = x;
        return true;
    case LG_RLH_RFC3339:
    case LG_RLH_HTTP_DATE:
        f->reset_at_ms = x;
        return true;
    default:
        return false;
    }
}

typedef struct {
    lg_rl_family f;
    bool unknown; /* a value of -1: the provider reports no limit for this family */
    bool any;
} slot;

static slot *find_slot(slot *s, size_t *n, size_t cap, const char *key)
{
    for (size_t i = 0; i < *n; i++)
        if (!strcmp(s[i].f.key, key))
            return &s[i];
    if (*n == cap)
        return NULL;
    slot *x = &s[(*n)++];
    memset(x, 0, sizeof *x);
    strcpy(x->f.key, key);
    return x;
}

static void add_header(slot *s, size_t *n, size_t cap, const lg_header *h)
{
    lg_rlh_name nm;
    if (!h->name || !h->value || !lg_rlh_name_of(h->name, false, &nm))
        return;
    slot *x = find_slot(s, n, cap, nm.key);
    if (!x)
        return;
    if (nm.dim != LG_DIM_NONE)
        x->f.dim = (lg_dim)nm.dim;
    if (nm.window != LG_WIN_NONE)
        x->f.window = (lg_window)nm.window;
    int64_t v;
    if ((nm.kind == LG_RLH_LIMIT || nm.kind == LG_RLH_REMAINING) && lg_rlh_count(h->value, &v)) {
        x->unknown = x->unknown || v < 0;
        x->f.exhausted = x->f.exhausted || (nm.kind == LG_RLH_REMAINING && v == 0);
        x->any = true;
    } else if (nm.kind == LG_RLH_RESET && parse_reset(h->value, &x->f)) {
        x->f.has_reset = x->any = true;
    } else if (nm.kind == LG_RLH_STATUS) {
        x->f.exhausted = x->f.exhausted || !strcmp(h->value, "rejected");
        x->any = true;
    } else if (nm.kind == LG_RLH_TYPE) {
        /* the limit hit, by name: its words say the window ("UserByModelByDay", "requests-per-minute") */
        lg_text_info t = lg_text_signal(h->value, strlen(h->value));
        lg_window w = t.sig == LG_SIG_QUOTA ? LG_WIN_DAY : t.window_named ? LG_WIN_MINUTE : LG_WIN_NONE;
        if (w != LG_WIN_NONE) {
            x->f.window = w;
            x->f.exhausted = x->any = true;
        }
    }
}

/* The window of w seconds. */
static lg_window window_of_seconds(int64_t w)
{
    return w < 60       ? LG_WIN_SECOND
           : w < 3600   ? LG_WIN_MINUTE
           : w < 86400  ? LG_WIN_HOUR
           : w < 604800 ? LG_WIN_DAY
           : w < 2592000 ? LG_WIN_WEEK
                        : LG_WIN_MONTH;
}

/* One key=value parameter of an IETF RateLimit or RateLimit-Policy member, applied to family x. */
static void ietf_param(slot *x, const char *k, size_t kl, const char *v)
{
    char *end;
    int64_t num = strtoll(v, &end, 10);
    if (end == v)
        return;
    if ((kl == 1 && *k == 'r') || (kl == 9 && !strncasecmp(k, "remaining", 9))) {
        x->unknown = x->unknown || num < 0;
        x->f.exhausted = x->f.exhausted || num == 0;
        x->any = true;
    } else if ((kl == 1 && *k == 't') || (kl == 5 && !strncasecmp(k, "reset", 5))) {
        x->f.reset_ms = num * 1000;
        x->f.reset_at_ms = LG_NO_HINT;
        x->f.has_reset = x->any = num >= 0;
    } else if (kl == 1 && *k == 'w' && num > 0) {
        x->f.window = window_of_seconds(num);
    }
}

/* The IETF draft's headers (draft-ietf-httpapi-ratelimit-headers): RateLimit in draft 6's form
 * "limit=20, remaining=0, reset=42" (one family) or the later structured list '"api";r=0;t=55' (a family per
 * policy, named by its item), and RateLimit-Policy '"api";q=500;w=300', whose w (seconds) is the window of
 * the policy of that name. Families are keyed by the policy's name ("ietf-api"); an unnamed policy is the
 * family of the unnamed RateLimit-Limit / -Remaining / -Reset headers (key "", draft 7's separate fields). */
static void add_ietf(slot *s, size_t *n, size_t cap, const char *value)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", value);
    char *save = NULL;
    for (char *m = strtok_r(buf, ",", &save); m; m = strtok_r(NULL, ",", &save)) {
        m += strspn(m, " \t");
        char key[LG_RLH_KEY] = "";
        if (*m == '"' || (*m && !strchr(m, '='))) { /* the policy's name */
            size_t len = *m == '"' ? strcspn(m + 1, "\"") : strcspn(m, ";");
            snprintf(key, sizeof key, "ietf-%.*s", (int)(len < 40 ? len : 40), *m == '"' ? m + 1 : m);
        }
        slot *x = find_slot(s, n, cap, key);
        if (!x)
            return;
        char *psave = NULL;
        for (char *p = strtok_r(m, ";", &psave); p; p = strtok_r(NULL, ";", &psave)) {
            p += strspn(p, " \t");
            char *eq = strchr(p, '=');
            if (eq)
                ietf_param(x, p, (size_t)(eq - p), eq + 1);
        }
    }
}

size_t lg_rl_families(const lg_response_view *r, lg_rl_family *out, size_t cap)
{
    slot s[LG_RL_FAMILIES_MAX];
    size_t n = 0, m = 0;
    for (size_t i = 0; r && r->headers && i < r->n_headers; i++) {
        const lg_header *h = &r->headers[i];
        if (h->name && h->value && (!strcasecmp(h->name, "ratelimit") || !strcasecmp(h->name, "ratelimit-policy")))
            add_ietf(s, &n, LG_RL_FAMILIES_MAX, h->value);
        else
            add_header(s, &n, LG_RL_FAMILIES_MAX, h);
    }
    for (size_t i = 0; i < n && m < cap; i++)
        if (s[i].any && !s[i].unknown)
            out[m++] = s[i].f;
    return m;
}

lg_sig lg_rl_window_signal(const lg_rl_family *f, size_t n)
{
    lg_sig s = LG_SIG_NONE;
    for (size_t i = 0; i < n; i++) {
        if (!f[i].exhausted)
            continue;
        if (f[i].window >= LG_WIN_HOUR)
            return LG_SIG_QUOTA;
        if (f[i].window != LG_WIN_NONE)
            s = LG_SIG_RATE;
        else if (s == LG_SIG_NONE)
            s = LG_SIG_LIMIT;
    }
    return s;
}
