/* Header lookups shared by every module. */
#include <strings.h>

#include "llmgate/http.h"

const char *lg_header_get(const lg_header *h, size_t n, const char *name)
{
    for (size_t i = 0; h && i < n; i++)
        if (h[i].name && !strcasecmp(h[i].name, name))
            return h[i].value ? h[i].value : "";
    return NULL;
}

bool lg_is_event_stream(const char *ct)
{
    static const char want[] = "text/event-stream";
    for (; ct && *ct; ct++) /* a plain scan: strcasestr's set-up costs more than these short values */
        if ((*ct | 0x20) == 't' && !strncasecmp(ct, want, sizeof want - 1))
            return true;
    return false;
}
