/* Recording what the scanners find: signals per level of evidence, message text and its hints. */
#include <string.h>

#include "classify/dialects.h"

/* Longest text analysed for signals and hints; messages are short, this only bounds the work. */
#define TEXT_SCAN_MAX 16384

void lg_cls_init(lg_cls *c, lg_dialect d)
{
    memset(c, 0, sizeof *c);
    c->dialect = d;
    c->retry_info_ms = c->quota_delay_ms = c->body_retry_ms = c->reset_at_ms = LG_NO_HINT;
    c->prose_ms = c->prose_at_ms = LG_NO_HINT;
    c->u_in = c->u_cache_w = c->u_cache_r = c->u_out = -1;
}

void lg_cls_evidence(lg_cls *c, lg_evidence ev, lg_sig s)
{
    if ((unsigned)ev < LG_EV_COUNT && s != LG_SIG_NONE && c->ev[ev] == LG_SIG_NONE)
        c->ev[ev] = s;
}

/* Length of the valid UTF-8 sequence at s (at most n bytes), or 0 when the bytes there are not one. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    size_t k;
    unsigned cp;
    if (s[0] < 0x80)
        return 1;
    if ((s[0] & 0xE0) == 0xC0)
        k = 2, cp = s[0] & 0x1F;
    else if ((s[0] & 0xF0) == 0xE0)
        k = 3, cp = s[0] & 0x0F;
    else if ((s[0] & 0xF8) == 0xF0)
        k = 4, cp = s[0] & 0x07;
    else
        return 0;
    if (k > n)
        return 0;
    for (size_t i = 1; i < k; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    static const unsigned min_cp[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < min_cp[k] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return k;
}

/* Copies text into dst (cap bytes with NUL), cutting at a character boundary; invalid bytes become '?'. */
static void utf8_copy(char *dst, size_t cap, const char *src, size_t n)
{
    size_t o = 0, i = 0;
    while (i < n) {
        size_t k = utf8_len((const unsigned char *)src + i, n - i);
        size_t w = k ? k : 1;
        if (o + w >= cap)
            break;
        if (k)
            memcpy(dst + o, src + i, k);
        else
            dst[o] = '?';
        o += w;
        i += w;
    }
    dst[o] = '\0';
}

void lg_cls_text(lg_cls *c, const char *text, size_t len, bool as_message)
{
    if (!text)
        return;
    const char *nul = memchr(text, '\0', len);
    if (nul)
        len = (size_t)(nul - text);
    size_t n = len > TEXT_SCAN_MAX ? TEXT_SCAN_MAX : len;
    lg_text_info info = lg_text_signal(text, n);
    if (c->ev[LG_EV_MESSAGE] == LG_SIG_NONE && info.sig != LG_SIG_NONE)
        c->vague_message = info.vague;
    lg_cls_evidence(c, LG_EV_MESSAGE, info.sig);
    c->never_fit = c->never_fit || info.never_fit;
    c->window_named = c->window_named || info.window_named;
    c->credit = c->credit || info.credit;
    c->cap_reached = c->cap_reached || info.cap_reached;
    if (c->text_period == LG_SIG_NONE)
        c->text_period = info.period;
    if (c->text_dim == LG_DIM_NONE)
        c->text_dim = info.dim;
    int64_t v;
    if (c->prose_ms == LG_NO_HINT && lg_prose_wait(text, n, &v))
        c->prose_ms = v;
    if (c->prose_at_ms == LG_NO_HINT && lg_prose_time(text, n, &v))
        c->prose_at_ms = v;
    if (as_message && !c->has_message && n) {
        utf8_copy(c->message, sizeof c->message, text, n);
        c->has_message = true;
    }
}

void lg_cls_status_error(lg_cls *c, const char *msg, lg_evidence ev, lg_sig s)
{
    c->error = true;
    if (msg)
        lg_cls_text(c, msg, strlen(msg), true);
    lg_cls_evidence(c, ev, s);
}
