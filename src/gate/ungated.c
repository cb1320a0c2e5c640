/* The report of a provider's traffic that went through ungated (see llmgate/ungated.h). */
#include <errno.h>
#include <stdio.h>

#include "llmgate/clock.h"
#include "llmgate/log.h"
#include "llmgate/store.h"
#include "llmgate/ungated.h"

#define UNGATED_INTERVAL_MS 60000 /* one line per provider and cause this often, across processes */

static const struct {
    const char *word, *what;
} causes[LG_UNGATED_CAUSES] = {
    [LG_UNGATED_HTTP2] = {"http2", "an HTTP/2 connection"},
    [LG_UNGATED_TOO_LARGE] = {"too-large", "a request larger than hold.max_body_bytes"},
    [LG_UNGATED_PIPELINED] = {"pipelined", "a request written before the previous answer was read"},
    [LG_UNGATED_NO_SOCKET] = {"no-socket", "a TLS session with no socket under it"},
    [LG_UNGATED_NOT_HTTP1] = {"not-http1", "not a plain HTTP/1.1 request"},
    [LG_UNGATED_OTHER_HOST] = {"other-host", "a request whose Host is not the provider's"},
    [LG_UNGATED_NO_ROOM] = {"no-room", "a request llmgate had no memory to follow"},
};

const char *lg_ungated_word(lg_ungated_cause cause)
{
    return (unsigned)cause < LG_UNGATED_CAUSES ? causes[cause].word : "unknown";
}

void lg_ungated(struct lg_store *store, const char *provider, lg_ungated_cause cause)
{
    if (!provider || (unsigned)cause >= LG_UNGATED_CAUSES)
        return;
    int saved = errno;
    lg_store_scope sc = {.provider = provider};
    lg_prov_op op = {.kind = LG_PROV_UNGATED, .now_ms = lg_now_ms(), .interval_ms = UNGATED_INTERVAL_MS,
                     .cause = cause};
    if (lg_store_provider(store, &sc, &op) != 0)
        op.due = true; /* no shared store: this process's own debounce alone */
    char key[96];
    snprintf(key, sizeof key, "ungated:%s:%s", causes[cause].word, provider);
    if (op.due)
        lg_notice(&(bool){false}, key, UNGATED_INTERVAL_MS,
                  "%s: ungated (%s): %s went out with the program's own key, not limited or retried", provider,
                  causes[cause].word, causes[cause].what);
    errno = saved;
}
