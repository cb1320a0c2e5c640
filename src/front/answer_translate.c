/* A captured response translated for the host (see answer_translate.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "front/answer_translate.h"
#include "llmgate/log.h"

/* Sets the Content-Length line of cap (when it has one) to len; false when out of memory. */
static bool set_length(lg_capture *cap, size_t len)
{
    for (size_t i = 0; i < cap->n_lines; i++) {
        if (strncasecmp(cap->lines[i], "content-length:", 15))
            continue;
        char line[64];
        snprintf(line, sizeof line, "Content-Length: %zu\r\n", len);
        if (!lg_capture_set_line(cap, i, line))
            return false;
    }
    return true;
}

bool lg_capture_translate(lg_capture *cap, lg_tr_dialect target, lg_tr_dialect host)
{
    char reason[LG_TR_REASON_MAX] = "";
    char *out = NULL;
    lg_tr_response_opts opts = {.model = NULL, .created = (int64_t)time(NULL)};
    lg_tr_status st = lg_tr_response_translate(target, host, cap->status, cap->body ? cap->body : "",
                                               cap->body_len, &opts, &out, reason);
    if (st != LG_TR_OK) {
        lg_log(LG_LOG_INFO, "[Translate] the %s response (status %d) is given as it came: %s",
               lg_tr_dialect_name(target), cap->status, st == LG_TR_NOMEM ? "out of memory" : reason);
        return false;
    }
    size_t len = strlen(out);
    if (!set_length(cap, len)) {
        free(out);
        return false;
    }
    free(cap->body);
    cap->body = out;
    cap->body_len = len;
    cap->body_cap = len + 1;
    return true;
}
