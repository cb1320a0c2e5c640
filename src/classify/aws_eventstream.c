/* The frames of an AWS event stream (application/vnd.amazon.eventstream: Bedrock's ConverseStream and
 * InvokeModelWithResponseStream) read as a stream's events. An "exception" frame is an error whose
 * :exception-type is its code (throttlingException, serviceUnavailableException, modelStreamErrorException,
 * validationException, ...: the shared code table, any case) and whose payload is Bedrock's error body
 * ({"message": ...}); an "error" frame has :error-code and :error-message headers instead. An event's payload
 * is a document (ConverseStream's metadata event carries its usage); a "chunk" event's payload is
 * {"bytes": "<base64 of the model's own JSON>"}, that JSON is read as the document, and its
 * amazon-bedrock-invocationMetrics (in the last chunk) give the usage. */
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>

#include "classify/dialects.h"

#define CHUNK_B64_MAX (1u << 20) /* a chunk's base64 longer than this is not decoded */

/* True when the frame's header name holds the string want. */
static bool header_is(const lg_aws_frame *f, const char *name, const char *want)
{
    const char *v;
    size_t n;
    return lg_aws_frame_header(f, name, &v, &n) && n == strlen(want) && !memcmp(v, want, n);
}

/* Reads the n bytes at p as one JSON document with read; false when they do not parse. */
static bool read_json(lg_cls *c, const char *p, size_t n, bool http_error, lg_document_reader read_doc)
{
    cJSON *doc = n && (p[0] == '{' || p[0] == '[') ? lg_json_parse(p, n) : NULL;
    if (doc)
        read_doc(c, doc, http_error);
    cJSON_Delete(doc);
    return doc != NULL;
}

/* Records the counts of an amazon-bedrock-invocationMetrics object (the uncached input, the cache's reads
 * and writes, the output) as usage fields. */
static void invocation_metrics(lg_cls *c, const cJSON *m)
{
    static const struct {
        const char *key;
        int field;
    } keys[] = {{"inputTokenCount", LG_UF_INPUT},
                {"outputTokenCount", LG_UF_OUTPUT},
                {"cacheReadInputTokenCount", LG_UF_CACHE_READ},
                {"cacheWriteInputTokenCount", LG_UF_CACHE_WRITE}};
    lg_usage_fields f = {.has = 0};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(m, keys[i].key);
        if (cJSON_IsNumber(v)) {
            f.v[keys[i].field] = (int64_t)v->valuedouble;
            f.has |= 1u << keys[i].field;
        }
    }
    if (f.has)
        lg_usage_apply(c, &f);
}

/* A chunk event: its payload's base64 "bytes" decoded and read as the model's own document. */
static void read_chunk(lg_cls *c, const lg_aws_frame *f, bool http_error, lg_document_reader read_doc)
{
    cJSON *outer = lg_json_parse(f->payload, f->payload_len);
    const char *b64 = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(outer, "bytes"));
    size_t len = b64 ? strlen(b64) : 0;
    unsigned char *dec = len && len % 4 == 0 && len <= CHUNK_B64_MAX ? malloc(len / 4 * 3 + 1) : NULL;
    int n = dec ? EVP_DecodeBlock(dec, (const unsigned char *)b64, (int)len) : -1;
    while (n > 0 && b64[len - 1] == '=' && len--) /* EVP_DecodeBlock counts the padding */
        n--;
    cJSON *doc = n > 0 ? lg_json_parse((const char *)dec, (size_t)n) : NULL;
    if (doc) {
        read_doc(c, doc, http_error);
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(doc, "amazon-bedrock-invocationMetrics");
        if (cJSON_IsObject(m))
            invocation_metrics(c, m);
    }
    cJSON_Delete(doc);
    free(dec);
    cJSON_Delete(outer);
}

/* An exception or error frame: the stream's error, read as the error body it carries. */
static void read_exception(lg_cls *c, const lg_aws_frame *f, bool exception, lg_document_reader read_doc)
{
    const char *v;
    size_t n;
    char code[64];
    c->error = true;
    if (!exception && lg_aws_frame_header(f, ":error-message", &v, &n))
        lg_cls_text(c, v, n, true);
    else if (!read_json(c, f->payload, f->payload_len, true, read_doc) && f->payload_len)
        lg_cls_text(c, f->payload, f->payload_len, true);
    if (lg_aws_frame_header(f, exception ? ":exception-type" : ":error-code", &v, &n) && n && n < sizeof code) {
        memcpy(code, v, n);
        code[n] = '\0';
        lg_cls_code(c, code);
    }
}

bool lg_aws_frame_is_error(const lg_aws_frame *f)
{
    return header_is(f, ":message-type", "exception") || header_is(f, ":message-type", "error");
}

void lg_scan_aws_frames(lg_cls *c, const char *b, size_t n, bool http_error, lg_document_reader read_doc)
{
    lg_aws_frame f;
    for (size_t at = 0; !c->error && at < n && lg_aws_frame_read(b + at, n - at, &f) == LG_AWS_FRAME_OK;
         at += f.total) {
        if (lg_aws_frame_is_error(&f))
            read_exception(c, &f, header_is(&f, ":message-type", "exception"), read_doc);
        else if (header_is(&f, ":event-type", "chunk"))
            read_chunk(c, &f, http_error, read_doc);
        else
            read_json(c, f.payload, f.payload_len, http_error, read_doc);
    }
}

bool lg_aws_frame_is_content(const lg_aws_frame *f)
{
    return header_is(f, ":message-type", "event") && !header_is(f, ":event-type", "messageStart") &&
           !header_is(f, ":event-type", "initial-response");
}
