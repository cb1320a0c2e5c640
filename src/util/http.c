/* Header lookups shared by every module. */
#include <string.h>
#include <strings.h>

#include "llmgate/http.h"

const char *lg_header_get(const lg_header *h, size_t n, const char *name)
{
    char first = (char)(name[0] | 0x20); /* a name whose first letter differs in ASCII case cannot match */
    for (size_t i = 0; h && i < n; i++)
        if (h[i].name && (char)(h[i].name[0] | 0x20) == first && !strcasecmp(h[i].name, name))
            return h[i].value ? h[i].value : "";
    return NULL;
}

/* True when a starts with the lowercase text want, in any ASCII case. */
static bool starts_nocase(const char *a, const char *want)
{
    for (; *want; a++, want++)
        if ((*a >= 'A' && *a <= 'Z' ? *a + ('a' - 'A') : *a) != *want)
            return false;
    return true;
}

bool lg_is_aws_eventstream(const char *ct) { return ct && strcasestr(ct, "application/vnd.amazon.eventstream"); }

bool lg_is_event_stream(const char *ct)
{
    static const char want[] = "text/event-stream"; /* its '/' is at 4: each '/' in ct is a place to look */
    for (const char *slash = ct ? strchr(ct, '/') : NULL; slash; slash = strchr(slash + 1, '/'))
        if (slash - ct >= 4 && starts_nocase(slash - 4, want))
            return true;
    return false;
}
