/* Strict dialect checks (see strict.h). The messages are the real APIs' wording:
 * Anthropic (docs.anthropic.com/en/api/errors; observed answers): "messages: Unexpected role \"system\".
 * The Messages API accepts a top-level `system` parameter, not \"system\" as an input message role.",
 * "messages: roles must alternate between \"user\" and \"assistant\", but found multiple \"user\" roles in
 * a row", "max_tokens: Field required"; Gemini (google.rpc.Status, INVALID_ARGUMENT): "Invalid JSON
 * payload received. Unknown name \"messages\": Cannot find field." and "Please use a valid role: user,
 * model." */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mock/strict.h"

static bool strict;

void mock_strict_enable(bool on)
{
    strict = on;
}

static char *message(const char *fmt, const char *a, const char *b)
{
    char buf[512];
    snprintf(buf, sizeof buf, fmt, a, b);
    return strdup(buf);
}

static char *anthropic(const cJSON *body)
{
    const cJSON *msgs = cJSON_GetObjectItemCaseSensitive(body, "messages"), *m;
    if (!cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(body, "max_tokens")))
        return message("max_tokens: Field required%s%s", "", "");
    if (!cJSON_IsArray(msgs))
        return message("messages: Field required%s%s", "", "");
    const char *prev = NULL;
    int i = 0;
    cJSON_ArrayForEach(m, msgs) {
        const char *role = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "role"));
        if (!role)
            return message("messages.%s.role: Field required%s", i == 0 ? "0" : "N", "");
        if (strcmp(role, "user") && strcmp(role, "assistant"))
            return message("messages: Unexpected role \"%s\". The Messages API accepts a top-level `system` "
                           "parameter, not \"%s\" as an input message role.", role, role);
        if (prev && !strcmp(prev, role))
            return message("messages: roles must alternate between \"user\" and \"assistant\", but found "
                           "multiple \"%s\" roles in a row%s", role, "");
        prev = role;
        i++;
    }
    return NULL;
}

static char *gemini(const cJSON *body)
{
    static const char *const known[] = {"contents", "tools", "toolConfig", "safetySettings", "systemInstruction",
                                        "generationConfig", "cachedContent", "labels", NULL};
    const cJSON *f, *c;
    cJSON_ArrayForEach(f, body) {
        size_t i = 0;
        while (known[i] && strcmp(known[i], f->string))
            i++;
        if (!known[i])
            return message("Invalid JSON payload received. Unknown name \"%s\": Cannot find field.%s", f->string, "");
    }
    if (!cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(body, "contents")))
        return message("* GenerateContentRequest.contents: contents is not specified%s%s", "", "");
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(body, "contents")) {
        const char *role = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "role"));
        if (role && strcmp(role, "user") && strcmp(role, "model"))
            return message("Please use a valid role: user, model.%s%s", "", "");
    }
    return NULL;
}

char *mock_strict_violation(const mock_request *q)
{
    if (!strict || q->bad_json || (q->endpoint != MOCK_EP_MESSAGES && q->endpoint != MOCK_EP_GENERATE))
        return NULL;
    cJSON *body = cJSON_ParseWithLength(q->body, q->body_len);
    char *why = !cJSON_IsObject(body) ? message("The request body is not a JSON object.%s%s", "", "")
                : q->endpoint == MOCK_EP_MESSAGES ? anthropic(body)
                                                  : gemini(body);
    cJSON_Delete(body);
    return why;
}

void mock_strict_error(mock_reply *r, const mock_request *q, const char *msg)
{
    cJSON *o = cJSON_CreateObject(), *e;
    if (q->endpoint == MOCK_EP_MESSAGES) {
        cJSON_AddStringToObject(o, "type", "error");
        e = cJSON_AddObjectToObject(o, "error");
        cJSON_AddStringToObject(e, "type", "invalid_request_error");
        cJSON_AddStringToObject(e, "message", msg);
    } else {
        e = cJSON_AddObjectToObject(o, "error");
        cJSON_AddNumberToObject(e, "code", 400);
        cJSON_AddStringToObject(e, "message", msg);
        cJSON_AddStringToObject(e, "status", "INVALID_ARGUMENT");
        cJSON *d = cJSON_CreateObject(), *v = cJSON_CreateObject();
        cJSON_AddStringToObject(d, "@type", "type.googleapis.com/google.rpc.BadRequest");
        cJSON_AddStringToObject(v, "description", msg);
        cJSON_AddItemToArray(cJSON_AddArrayToObject(d, "fieldViolations"), v);
        cJSON_AddItemToArray(cJSON_AddArrayToObject(e, "details"), d);
    }
    mock_reply_json(r, 400, o, q->endpoint == MOCK_EP_MESSAGES ? 0 : 2);
}
