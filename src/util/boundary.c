/* Stream cut points (see boundary.h). */
#include <stdlib.h>
#include <string.h>

#include "llmgate/boundary.h"

#define DEFAULT_MAX_HOLD (1u << 20)

void lg_boundary_init(lg_boundary *b, lg_stream_boundary mode)
{
    memset(b, 0, sizeof *b);
    b->mode = mode;
    b->max_hold = DEFAULT_MAX_HOLD;
}

void lg_boundary_free(lg_boundary *b)
{
    free(b->held);
    memset(b, 0, sizeof *b);
}

/* Length of the UTF-8 sequence a lead byte starts (1 for ASCII and for bytes that start nothing valid). */
static size_t seq_len(unsigned char c)
{
    if (c >= 0xF0 && c <= 0xF4)
        return 4;
    if (c >= 0xE0)
        return c <= 0xEF ? 3 : 1;
    if (c >= 0xC2)
        return 2;
    return 1;
}

size_t lg_utf8_complete_prefix(const char *p, size_t len)
{
    /* look back over at most 3 continuation bytes for the lead byte of the last sequence */
    for (size_t back = 1; back <= 4 && back <= len; back++) {
        unsigned char c = (unsigned char)p[len - back];
        if ((c & 0xC0) == 0x80)
            continue; /* continuation byte */
        size_t need = seq_len(c);
        return need > back ? len - back : len;
    }
    return len; /* only continuation bytes: not ours to repair */
}

size_t lg_sse_complete_prefix(const char *p, size_t len)
{
    for (size_t i = len; i >= 2; i--)
        if (p[i - 1] == '\n' && (p[i - 2] == '\n' || (i >= 3 && p[i - 2] == '\r' && p[i - 3] == '\n')))
            return i;
    return 0;
}

static size_t cut_point(const lg_boundary *b, const char *p, size_t len)
{
    switch (b->mode) {
    case LG_BOUNDARY_NONE: return len;
    case LG_BOUNDARY_EVENT: {
        size_t cut = lg_sse_complete_prefix(p, len);
        return cut == 0 && len > b->max_hold ? lg_utf8_complete_prefix(p, len) : cut;
    }
    default: return lg_utf8_complete_prefix(p, len);
    }
}

/* Keeps p[0..len) as the held tail; false when memory runs out. */
static bool hold(lg_boundary *b, const char *p, size_t len)
{
    b->held_len = 0;
    if (len == 0)
        return true;
    if (len > b->held_cap) {
        size_t cap = b->held_cap ? b->held_cap : 256;
        while (cap < len)
            cap *= 2;
        char *n = malloc(cap);
        if (!n)
            return false;
        free(b->held);
        b->held = n;
        b->held_cap = cap;
    }
    memmove(b->held, p, len);
    b->held_len = len;
    return true;
}

/* Emits the part of p that ends on a boundary and holds the rest; when memory runs out the rest goes out
 * at once (the cut point is lost, never a byte). */
static bool cut_and_hold(lg_boundary *b, const char *p, size_t len, lg_emit_fn emit, void *ctx)
{
    size_t cut = cut_point(b, p, len);
    if (cut > 0 && !emit(ctx, p, cut))
        return false;
    if (hold(b, p + cut, len - cut))
        return true;
    return emit(ctx, p + cut, len - cut);
}

bool lg_boundary_feed(lg_boundary *b, const char *p, size_t len, lg_emit_fn emit, void *ctx)
{
    if (b->held_len == 0)
        return cut_and_hold(b, p, len, emit, ctx);
    size_t total = b->held_len + len;
    char *joined = malloc(total);
    if (!joined)
        return lg_boundary_flush(b, emit, ctx) && emit(ctx, p, len);
    memcpy(joined, b->held, b->held_len);
    memcpy(joined + b->held_len, p, len);
    b->held_len = 0;
    bool ok = cut_and_hold(b, joined, total, emit, ctx);
    free(joined);
    return ok;
}

bool lg_boundary_flush(lg_boundary *b, lg_emit_fn emit, void *ctx)
{
    size_t n = b->held_len;
    b->held_len = 0;
    return n == 0 || emit(ctx, b->held, n);
}
