/* libFuzzer harness: the request, response and stream translators between every pair of dialects on any
 * bytes. First byte: source dialect (bits 0-1), target (bits 2-3), piece size for the stream (bits 4-7).
 * A translated request or response is JSON; a refusal says why; the stream's output is whole SSE events
 * of whole UTF-8 characters, however the input is cut. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "llmgate/boundary.h"
#include "llmgate/translate.h"

static bool check_piece(void *ctx, const char *p, size_t len)
{
    (void)ctx;
    if (lg_utf8_complete_prefix(p, len) != len || lg_sse_complete_prefix(p, len) != len)
        abort(); /* output split inside a character or an event */
    return true;
}

static void must_be_json(const char *s)
{
    cJSON *j = cJSON_Parse(s);
    if (!j)
        abort();
    cJSON_Delete(j);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    lg_tr_dialect from = (lg_tr_dialect)(data[0] & 3 ? (data[0] & 3) - 1 : 0);
    lg_tr_dialect to = (lg_tr_dialect)((data[0] >> 2) & 3 ? ((data[0] >> 2) & 3) - 1 : 0);
    size_t piece = (size_t)(data[0] >> 4) + 1, n = size - 1;
    char *s = malloc(n ? n : 1); /* exactly n bytes, no NUL: reading past it is an ASan error */
    if (!s)
        return 0;
    memcpy(s, data + 1, n);

    lg_tr_request_opts ro = {"target-model", 0, data[0] & 0x10};
    lg_tr_request r;
    lg_tr_status st = lg_tr_request_translate(from, to, s, n, &ro, &r);
    if (st == LG_TR_OK)
        must_be_json(r.body);
    else if (r.body || !r.reason[0])
        abort(); /* nothing allocated, and a reason given */
    free(r.body);

    char *out = NULL, reason[LG_TR_REASON_MAX];
    st = lg_tr_response_translate(from, to, data[0] & 0x20 ? 200 : 429, s, n, NULL, &out, reason);
    if (st == LG_TR_OK)
        must_be_json(out);
    else if (out || !reason[0])
        abort();
    free(out);

    lg_tr_stream_opts so = {{"m", 1}, data[0] & 0x40};
    lg_tr_stream *t = lg_tr_stream_new(from, to, &so);
    if (t) {
        bool go = true;
        for (size_t off = 0; off < n && go; off += piece)
            go = lg_tr_stream_feed(t, s + off, n - off < piece ? n - off : piece, check_piece, NULL);
        if (go && !lg_tr_stream_finish(t, check_piece, NULL) && !lg_tr_stream_error(t)[0])
            abort(); /* a failed stream says why */
        lg_tr_stream_free(t);
    }
    free(s);
    return 0;
}
