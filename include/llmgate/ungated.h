/* No silent bypass: a provider's connection or request that llmgate lets go out as the program wrote it
 * (the program's own key, no limiter, no retry) is said on stderr, one line naming the provider and the
 * cause, and counted per provider in the shared store ("ungated" in llmgate status). */
#ifndef LLMGATE_UNGATED_H
#define LLMGATE_UNGATED_H

/* Why a provider's traffic went through ungated. Each cause has a fixed word (lg_ungated_word). */
typedef enum {
    LG_UNGATED_HTTP2,       /* "http2": HTTP/2 chosen by ALPN, or spoken with prior knowledge */
    LG_UNGATED_TOO_LARGE,   /* "too-large": a request larger than hold.max_body_bytes (and its head) */
    LG_UNGATED_PIPELINED,   /* "pipelined": a request written before the answer to the one before it */
    LG_UNGATED_NO_SOCKET,   /* "no-socket": a TLS session with no socket llmgate can find under it */
    LG_UNGATED_NOT_HTTP1,   /* "not-http1": not a plain HTTP/1.x request (upgrade, CONNECT, parse error) */
    LG_UNGATED_OTHER_HOST,  /* "other-host": a request whose Host names no provider of its connection */
    LG_UNGATED_NO_ROOM,     /* "no-room": no memory to follow it */
    LG_UNGATED_CAUSES
} lg_ungated_cause;

/* Room for causes in the shared store (lg_provider_slot): a cause added or retired leaves its layout as it is. */
#define LG_UNGATED_ROOM 12
_Static_assert(LG_UNGATED_CAUSES <= LG_UNGATED_ROOM, "the store has room for every ungated cause");

/* The cause's fixed word ("http2", "too-large", ...). */
const char *lg_ungated_word(lg_ungated_cause cause);

/* Reports that provider's traffic went through ungated for cause: counted on the provider's slot of store
 * (NULL or unusable: not counted), and one line on stderr (the log file when one is set) unless this
 * provider and cause were reported within the last minute, by any process sharing the store (by this
 * process alone when there is none). The line names the provider and the cause, never a URL or a key.
 * Preserves errno. */
struct lg_store;
void lg_ungated(struct lg_store *store, const char *provider, lg_ungated_cause cause);

#endif
