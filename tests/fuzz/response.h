/* The input format of the response harnesses: byte 0 the dialect, byte 1 flags (bit 0: an event
 * stream), bytes 2-3 the status (big-endian, mod 1000), then "name: value" header lines up to the first
 * blank line, then the body. tests/fuzz/seeds.py writes the fixtures in this format. */
#ifndef LLMGATE_FUZZ_RESPONSE_H
#define LLMGATE_FUZZ_RESPONSE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "llmgate/http.h"
#include "llmgate/preset.h"

#define FUZZ_HEADERS_MAX 32

typedef struct {
    lg_dialect dialect;
    lg_response_view view;
    lg_header headers[FUZZ_HEADERS_MAX];
    char *text; /* our copy of the header block: names and values NUL-terminated in place */
} fuzz_response;

/* Decodes data into r (free with fuzz_response_free); false when too short. The body is a separate
 * allocation of exactly its length, so reading past it is caught by ASan. */
static inline bool fuzz_response_decode(const uint8_t *data, size_t size, fuzz_response *r)
{
    memset(r, 0, sizeof *r);
    if (size < 4)
        return false;
    r->dialect = (lg_dialect)(data[0] % (LG_DIALECT_BAIDU + 1));
    r->view.stream = data[1] & 1;
    r->view.status = ((data[2] << 8) | data[3]) % 1000;
    data += 4, size -= 4;
    const uint8_t *end = memmem(data, size, "\n\n", 2);
    size_t head = end ? (size_t)(end - data) + 1 : 0;
    size_t body = end ? size - head - 1 : size;
    r->text = malloc(head + 1);
    if (!r->text)
        return false;
    memcpy(r->text, data, head);
    r->text[head] = '\0';
    for (char *line = r->text, *nl; *line && r->view.n_headers < FUZZ_HEADERS_MAX; line = nl + 1) {
        nl = strchr(line, '\n');
        if (!nl)
            break;
        *nl = '\0';
        char *colon = strchr(line, ':');
        if (!colon)
            continue;
        *colon = '\0';
        char *v = colon + 1;
        while (*v == ' ')
            v++;
        r->headers[r->view.n_headers++] = (lg_header){line, v};
    }
    r->view.headers = r->headers;
    /* The body at the very end of its own allocation: a read past it is an ASan error. */
    char *exact = malloc(body ? body : 1);
    if (!exact) {
        free(r->text);
        return false;
    }
    memcpy(exact, data + size - body, body);
    r->view.body = exact;
    r->view.body_len = body;
    return true;
}

static inline void fuzz_response_free(fuzz_response *r)
{
    free((void *)r->view.body);
    free(r->text);
}

#endif
