/* libFuzzer harness: the socket path's HTTP/1.1 request framing (src/front/h1_request.c) on any bytes, fed
 * whole and in pieces split where the first byte says. Invariants: the same state and the same request
 * however it is split; a complete request renders with a key, and its rendering parses again to a
 * complete request carrying that key and the same body. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "front/h1_request.h"

#define MAX_RAW (1 << 20)

/* Feeds data in pieces of `step` bytes until the request completes or fails; *used: bytes taken. */
static lg_h1_state feed(lg_h1_req *r, const uint8_t *data, size_t size, size_t step, size_t *used)
{
    lg_h1_state st = LG_H1_MORE;
    size_t off = 0;
    *used = 0;
    while (off < size && st == LG_H1_MORE) {
        size_t n = size - off < step ? size - off : step, took = 0;
        st = lg_h1_req_feed(r, (const char *)data + off, n, MAX_RAW, &took);
        if (took > n)
            abort(); /* never takes more than it was given */
        off += st == LG_H1_COMPLETE ? took : n;
    }
    *used = off;
    return st;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    size_t step = (size_t)data[0] % 17 + 1;
    data++, size--;
    lg_h1_req whole, split;
    lg_h1_req_init(&whole);
    lg_h1_req_init(&split);
    size_t used_whole, used_split;
    lg_h1_state a = feed(&whole, data, size, size ? size : 1, &used_whole);
    lg_h1_state b = feed(&split, data, size, step, &used_split);
    if (a == LG_H1_COMPLETE && (b != LG_H1_COMPLETE || whole.body_len != split.body_len ||
                                (whole.body_len && memcmp(whole.body, split.body, whole.body_len)) ||
                                used_whole != used_split))
    {
        fprintf(stderr, "split: %d/%d used %zu/%zu body %zu/%zu\n", (int)a, (int)b, used_whole, used_split,
                whole.body_len, split.body_len);
        abort(); /* the framing does not depend on how the host split its writes */
    }
    if (a == LG_H1_COMPLETE && !whole.oom) {
        size_t len = 0;
        char *wire = lg_h1_req_render(&whole, &(lg_h1_render){.key = "sk-fuzz-key-0123456789", .style = LG_AUTH_BEARER}, &len);
        if (wire) {
            lg_h1_req again;
            lg_h1_req_init(&again);
            size_t used;
            lg_h1_state c = feed(&again, (const uint8_t *)wire, len, len, &used);
            char key[64];
            if (c != LG_H1_COMPLETE || again.body_len != whole.body_len ||
                (whole.body_len && memcmp(again.body, whole.body, whole.body_len)) ||
                !lg_h1_req_find_key(&again, key, sizeof key) || strcmp(key, "sk-fuzz-key-0123456789"))
            {
                fprintf(stderr, "render: %d %s body %zu/%zu\n%.*s\n", (int)c, http_errno_name(HTTP_PARSER_ERRNO(&again.p)), again.body_len, whole.body_len, (int)len, wire);
                abort(); /* what llmgate sends is a request it can read back, with the key it put in */
            }
            lg_h1_req_free(&again);
            free(wire);
        }
    }
    lg_h1_req_free(&whole);
    lg_h1_req_free(&split);
    return 0;
}
