/* Translated responses on the socket/TLS front end (see h1_translate.h). */
#include <string.h>
#include <strings.h>

#include "front/h1_translate.h"

bool lg_h1_tr_headers(char *const *lines, size_t n, lg_emit_fn emit, void *ctx)
{
    static const char chunked[] = "Transfer-Encoding: chunked\r\n";
    for (size_t i = 0; i < n; i++) {
        const char *l = lines[i];
        if (!strncasecmp(l, "content-length:", 15) || !strncasecmp(l, "transfer-encoding:", 18))
            continue;
        if (i + 1 == n && !emit(ctx, chunked, sizeof chunked - 1))
            return false;
        if (!emit(ctx, l, strlen(l)))
            return false;
    }
    return true;
}
