/* Counters and request log entries (see stats.h). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "mock/stats.h"

void mock_counts_add(mock_counts *c, mock_outcome o, int64_t tokens)
{
    switch (o) {
    case MOCK_OUT_SUCCESS:
        c->success++;
        c->tokens += tokens;
        break;
    case MOCK_OUT_RATE_LIMITED: c->rate_limited++; break;
    case MOCK_OUT_SERVER_ERROR: c->server_error++; break;
    case MOCK_OUT_OTHER_ERROR: c->other_error++; break;
    }
}

mock_outcome mock_outcome_of_status(int status)
{
    if (status >= 200 && status < 300)
        return MOCK_OUT_SUCCESS;
    if (status == 429)
        return MOCK_OUT_RATE_LIMITED;
    if (status >= 500)
        return MOCK_OUT_SERVER_ERROR;
    return MOCK_OUT_OTHER_ERROR;
}

cJSON *mock_counts_json(const mock_counts *c)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "requests", (double)c->requests);
    cJSON_AddNumberToObject(o, "success", (double)c->success);
    cJSON_AddNumberToObject(o, "rate_limited", (double)c->rate_limited);
    cJSON_AddNumberToObject(o, "server_error", (double)c->server_error);
    cJSON_AddNumberToObject(o, "other_error", (double)c->other_error);
    cJSON_AddNumberToObject(o, "max_in_window", (double)c->max_in_window);
    cJSON_AddNumberToObject(o, "max_arrived_in_window", (double)c->max_arrived_in_window);
    cJSON_AddNumberToObject(o, "tokens", (double)c->tokens);
    return o;
}

void mock_sha256_hex(const char *data, size_t len, char out[65])
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    out[0] = '\0';
    if (!EVP_Digest(data, len, md, &n, EVP_sha256(), NULL))
        return;
    for (unsigned int i = 0; i < n && i < 32; i++)
        sprintf(out + 2 * i, "%02x", md[i]);
}

/* Adds name: value to obj, joining with ", " when the name is already there. */
static void add_header(cJSON *obj, const char *name, const char *value)
{
    cJSON *old = cJSON_GetObjectItemCaseSensitive(obj, name);
    if (!old) {
        cJSON_AddStringToObject(obj, name, value);
        return;
    }
    size_t len = strlen(old->valuestring) + strlen(value) + 3;
    char *joined = malloc(len);
    if (!joined)
        return;
    snprintf(joined, len, "%s, %s", old->valuestring, value);
    cJSON_ReplaceItemInObjectCaseSensitive(obj, name, cJSON_CreateString(joined));
    free(joined);
}

char *mock_log_entry(const mock_request *req, int64_t at_ms)
{
    char sha[65];
    mock_sha256_hex(req->body ? req->body : "", req->body_len, sha);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "method", req->method);
    cJSON_AddStringToObject(o, "path", req->path);
    cJSON_AddStringToObject(o, "query", req->query);
    cJSON_AddStringToObject(o, "host", req->host);
    cJSON_AddStringToObject(o, "key", req->key);
    cJSON_AddStringToObject(o, "auth_header_name", req->auth_header);
    cJSON_AddStringToObject(o, "dialect", mock_dialect_name(req->dialect));
    cJSON_AddNumberToObject(o, "body_len", (double)req->body_len);
    cJSON_AddStringToObject(o, "body_sha256", sha);
    cJSON_AddNumberToObject(o, "at_ms", (double)at_ms);
    cJSON *h = cJSON_AddObjectToObject(o, "headers");
    for (size_t i = 0; i < req->n_headers; i++) {
        char name[256];
        size_t j = 0;
        for (; req->headers[i].name[j] && j < sizeof name - 1; j++)
            name[j] = (char)tolower((unsigned char)req->headers[i].name[j]);
        name[j] = '\0';
        add_header(h, name, req->headers[i].value);
    }
    char *s = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return s;
}
