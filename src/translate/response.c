/* Whole-response translation: success bodies through the OpenAI hub, error bodies directly. */
#include <stdlib.h>
#include <string.h>

#include "translate/internal.h"

lg_tr_status lg_tr_response_translate(lg_tr_dialect target, lg_tr_dialect host, int status, const char *body,
                                      size_t len, const lg_tr_response_opts *opts, char **out,
                                      char reason[LG_TR_REASON_MAX])
{
    tr_fail f = {LG_TR_OK, reason};
    reason[0] = '\0';
    *out = NULL;
    cJSON *res = NULL;
    if (status < 200 || status > 299) {
        res = tr_error_body(host, status, body, len);
    } else {
        cJSON *r = body ? cJSON_ParseWithLength(body, len) : NULL, *hub = NULL;
        if (!cJSON_IsObject(r))
            tr_err(&f, LG_TR_MALFORMED, "the response body is not a JSON object");
        else if (target == LG_TR_ANTHROPIC)
            hub = tr_resp_anthropic_to_openai(r, opts, &f);
        else if (target == LG_TR_GEMINI)
            hub = tr_resp_gemini_to_openai(r, opts, &f);
        else
            hub = cJSON_Duplicate(r, true);
        if (hub && host == LG_TR_ANTHROPIC)
            res = tr_resp_openai_to_anthropic(hub, &f);
        else if (hub && host == LG_TR_GEMINI)
            res = tr_resp_openai_to_gemini(hub, &f);
        else
            res = hub, hub = NULL;
        cJSON_Delete(hub);
        cJSON_Delete(r);
    }
    if (res && f.st == LG_TR_OK && !(*out = cJSON_PrintUnformatted(res)))
        tr_err(&f, LG_TR_NOMEM, "out of memory");
    cJSON_Delete(res);
    return f.st;
}
