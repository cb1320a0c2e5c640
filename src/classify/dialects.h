/* Internal interface between the classifier core (src/classify) and the dialect files (src/providers).
 * A dialect's reader reads one JSON document (a whole body, one array element or one stream event) and
 * records what it finds into an lg_cls: whether it is an error, signals at each level of evidence,
 * wait hints from structured fields, and token usage. classify.c turns that into an lg_outcome. The
 * dialect files depend on this header; the classifier reaches them only through the readers they
 * register (lg_dialect_reader), never by name. */
#ifndef LLMGATE_CLASSIFY_DIALECTS_H
#define LLMGATE_CLASSIFY_DIALECTS_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>

#include "llmgate/aws_frames.h"
#include "util/json_scan.h"
#include "classify/rl_header.h"
#include "llmgate/classify.h"

/* What a piece of evidence says about the response. */
typedef enum {
    LG_SIG_NONE = 0,
    LG_SIG_QUOTA,    /* billing, credit, daily or longer quota, spend cap, a limit of 0 */
    LG_SIG_RATE,     /* per-second / per-minute / concurrency window */
    LG_SIG_CAPACITY, /* the provider lacks capacity for everyone */
    LG_SIG_SERVER,   /* generic server-side failure */
    LG_SIG_REJECT,   /* the request itself is refused: auth, validation, content policy */
    LG_SIG_LIMIT,    /* some limit was hit, nothing tells which */
} lg_sig;

/* Levels of evidence, most specific first; the first level holding a signal decides. */
typedef enum {
    LG_EV_CODE = 0, /* a structured code that names the condition exactly */
    LG_EV_QUOTA_ID, /* google.rpc.QuotaFailure quotaId: per day vs per minute */
    LG_EV_MESSAGE,  /* the provider's message text */
    LG_EV_HEADER,   /* the window of an exhausted rate-limit header family (x-ratelimit-remaining-requests-day: 0) */
    LG_EV_GENERIC,  /* a structured code that only names a family (rate_limit_exceeded, RESOURCE_EXHAUSTED) */
    LG_EV_COUNT
} lg_evidence;

/* The rate-limit dimension an error names. */
typedef enum { LG_DIM_NONE = 0, LG_DIM_REQUESTS, LG_DIM_TOKENS, LG_DIM_INPUT_TOKENS, LG_DIM_OUTPUT_TOKENS } lg_dim;

typedef enum { LG_USAGE_NONE = 0, LG_USAGE_TOTALS, LG_USAGE_FIELDS } lg_usage_kind;

/* Everything the scanners found in a response. Zero-initialise with lg_cls_init. */
typedef struct {
    lg_dialect dialect;
    bool error;              /* the body carries an error */
    int body_status;         /* HTTP status stated inside the body (google code, ":HTTP_STATUS/429"), 0 = none */
    lg_sig ev[LG_EV_COUNT];  /* first signal found at each level */
    bool vague_message;      /* the message level's signal is a rate limit whose text names no window: an
                              * exhausted header family that names one is more specific */
    bool limit_headers;      /* a rate-limit header family is exhausted, its window unnamed */
    bool never_fit;          /* the request can never fit the limit it hit */
    bool window_named;       /* the text names a per-second or per-minute window */
    lg_sig text_period;      /* the period the first message naming one names (lg_text_info.period) */
    bool credit;             /* a message says the balance or credit is insufficient */
    bool cap_reached;        /* a message says a usage cap is reached (lg_text_info.cap_reached) */
    lg_dim dim;              /* dimension from a structured field (OpenAI type "tokens") */
    lg_dim text_dim;         /* dimension named in the message */
    bool has_message;
    char message[LG_MESSAGE_MAX];
    int64_t retry_info_ms;   /* google.rpc.RetryInfo.retryDelay */
    int64_t quota_delay_ms;  /* ErrorInfo.metadata.quotaResetDelay */
    int64_t body_retry_ms;   /* a retry_after member of the error document (seconds, or ms when named so) */
    int embedded;            /* depth of provider bodies quoted inside messages being read (nested.c) */
    int64_t reset_at_ms;     /* absolute reset time from a structured field (Unix ms) */
    int64_t prose_ms;        /* relative wait in the message text */
    int64_t prose_at_ms;     /* absolute resume time in the message text */
    lg_usage_kind usage;     /* which of the two usage shapes was seen last */
    int64_t prompt, completion;                /* LG_USAGE_TOTALS */
    int64_t u_in, u_cache_w, u_cache_r, u_out; /* LG_USAGE_FIELDS; -1 = not seen */
} lg_cls;

void lg_cls_init(lg_cls *c, lg_dialect d);

/* Records signal s at level ev unless that level already holds one. */
void lg_cls_evidence(lg_cls *c, lg_evidence ev, lg_sig s);
/* Looks up a structured code or type name (any provider's vocabulary) and records it at LG_EV_CODE or
 * LG_EV_GENERIC. Returns true when the code was known. */
bool lg_cls_code(lg_cls *c, const char *code);
/* lg_cls_code for a code read beside its message msg (NULL: none), after the message was recorded:
 * insufficient_quota is a per-minute window when the message names one or links a window's anchor
 * (Bailian, Scaleway), whichever envelope carries them, and the provider's capacity when the message names
 * that (new-api's saturated upstream). */
bool lg_cls_code_beside(lg_cls *c, const char *code, const char *msg);
/* Analyses error text: signals, never-fit, dimension and wait hints. When as_message is set and no message
 * was kept yet, keeps a truncated, valid UTF-8 copy as the outcome's message. */
void lg_cls_text(lg_cls *c, const char *text, size_t len, bool as_message);
/* Records an error stated by a status field: the document is an error, its message msg (NULL: none) is
 * read, and the signal s its code gives is recorded at level ev. */
void lg_cls_status_error(lg_cls *c, const char *msg, lg_evidence ev, lg_sig s);

/* Tables of structured codes and type names (src/classify/codes.c: OpenAI and OpenAI-compatible APIs;
 * a dialect's own in its reader). */
typedef struct {
    const char *name; /* a name ending in '.' matches a dotted family by prefix */
    lg_sig sig;
    bool specific;    /* names the exact condition (LG_EV_CODE) rather than a family (LG_EV_GENERIC) */
} lg_code_entry;
typedef struct {
    const lg_code_entry *e;
    size_t n;
} lg_code_table;
/* Numeric codes of one provider's status field (Baidu error_code, MiniMax base_resp, iFlytek header.code):
 * consulted only by that provider's scanner, since numbers mean different things elsewhere. */
typedef struct {
    int64_t code;
    lg_sig sig;
} lg_num_code;
/* The signal of code (NULL: none) in table t alone, LG_SIG_NONE when absent; *specific as lg_code_signal's.
 * For a table that only one envelope's codes use (a reader's second vocabulary). */
lg_sig lg_code_table_signal(const lg_code_table *t, const char *code, bool *specific);
/* The signal of code in the n entries of t, LG_SIG_NONE when absent. */
lg_sig lg_num_code_signal(const lg_num_code *t, size_t n, int64_t code);
/* Signal of a code or type name: the table of the dialect's reader first (the shared table when it has
 * none), then the shared table and the registered readers' tables in their order, then the suffix
 * families. *specific tells LG_EV_CODE from LG_EV_GENERIC. */
lg_sig lg_code_signal(lg_dialect d, const char *code, bool *specific);
/* Reads one document (an object, or an array of them) into c the way the classifier reads a body's
 * documents (src/classify/classify.c); returns whether a dialect reader recognised it as an error. */
typedef bool (*lg_document_reader)(lg_cls *c, const cJSON *doc, bool http_error);
/* Walks an error document at any depth (nested objects, arrays, JSON documents embedded in message
 * strings) and records every known code and every message text found. A provider's whole body found
 * quoted inside another's message is read by read_document as an error document of its own (every
 * dialect reader: its RetryInfo, QuotaFailure, codes; then this walk), up to a bounded depth of quoted
 * bodies, below which it is only walked (src/classify/nested.c). */
void lg_scan_nested(lg_cls *c, const cJSON *doc, lg_document_reader read_document);
/* Reads each top-level string member of a success document that is a whole JSON object (a relay answering
 * 200 with the upstream's body quoted in a member of its own: {"content": "{\"header\":{\"code\":11200}}"})
 * as a document of its own, judged as a success's body is; returns whether one held an error a dialect
 * reader recognised (src/classify/nested.c). */
bool lg_scan_quoted_members(lg_cls *c, const cJSON *doc, lg_document_reader read_document);

/* Marks an error outcome out (classified, status the one it was judged by) as out of credit: reason
 * QUOTA_EXHAUSTED, detail LG_DETAIL_BILLING, a 5xx's PROVIDER_DOWN a rate limit, not an account refusal;
 * for a 402, a message or body saying the balance or credit is used up or a spend limit reached, or an
 * OpenAI insufficient_quota already read as a quota (src/classify/billing.c). */
void lg_cls_billing(lg_outcome *out, int status, const lg_response_view *r);

/* Text matching (src/classify/text_match.c). Case-insensitive; '-' and '_' in the text match a ' ' in the
 * needle. Returns the offset of the first match, or -1 (text NULL: -1). */
long lg_text_find(const char *text, size_t len, const char *needle);
/* lg_text_find in t[0..n) from offset from on (t not NULL). */
long lg_text_find_from(const char *t, size_t n, size_t from, const char *needle);
/* True when the word just before t[i], with spaces between them, is one of words[0..n) (any case). */
bool lg_text_word_before(const char *t, size_t i, const char *const *words, size_t n);
/* True when t[0..n) says the balance or credit is insufficient (the one list of credit phrases: a quota
 * whatever the status, and the billing detail, src/classify/billing.c). */
bool lg_text_says_credit(const char *t, size_t n);
/* What a text says (src/classify/text.c). */
typedef struct {
    lg_sig sig;        /* LG_SIG_NONE when it says nothing definite */
    bool vague;        /* sig is a rate limit the text names no window of ("rate limit", "throttled") */
    bool never_fit;    /* the request alone exceeds the limit */
    bool window_named; /* a per-second or per-minute window is named */
    lg_dim dim;        /* the dimension named first */
    lg_sig period;     /* QUOTA: only a period of an hour or longer is named ("per day", "RPD", "monthly");
                        * RATE: only a second or minute window; NONE: neither, or both */
    bool credit;       /* the balance or credit is said to be insufficient */
    bool cap_reached;  /* a usage cap is said to be reached ("reached its usage limit") */
} lg_text_info;
lg_text_info lg_text_signal(const char *text, size_t len);

/* Wait hints in prose (src/classify/hint_prose.c): a relative wait ("try again in 9m38.016s") in *ms,
 * or an absolute time ("regain access on 2026-04-01 at 00:00 UTC") in *at_ms. */
bool lg_prose_wait(const char *text, size_t len, int64_t *ms);
/* The wait after a "reset(s) in/after" phrase only ("Your quota will reset after 12h34m16s."). */
bool lg_prose_reset_wait(const char *text, size_t len, int64_t *ms);
bool lg_prose_time(const char *text, size_t len, int64_t *at_ms);

/* JSON helpers (src/classify/json.c; the skimming ones are in util/json_scan.h). */
cJSON *lg_json_parse(const char *s, size_t len); /* NULL on malformed or oversized input */
const char *lg_json_str(const cJSON *o, const char *key); /* non-empty string member or NULL */
bool lg_json_int(const cJSON *o, const char *key, int64_t *v); /* integral number (or numeric string) */
/* Calls fn on each element of a top-level JSON array text, even a truncated one; stops when fn
 * returns false. */
void lg_json_each_element(const char *s, size_t len, bool (*fn)(const cJSON *el, void *ctx), void *ctx);

/* Lazy reading of a success document (src/classify/lazy.c): one scan of the top-level members without
 * building a tree. Returns false when the document needs a full parse (it may be an error, it is
 * malformed, or usage may sit below the top level); otherwise records the top-level usage or
 * usageMetadata it found, with no allocation. */
bool lg_lazy_success(lg_cls *c, const char *s, size_t n);

/* Server-sent events (src/classify/sse.c). */
typedef struct {
    const char *event;  /* event name or "" */
    const char *data;   /* data lines joined by '\n', NUL-terminated */
    size_t data_len;
    int comment_status; /* status from a ":HTTP_STATUS/NNN" comment in this event, 0 = none */
} lg_sse_event;
/* Calls fn for each event of an event-stream text (also the unterminated last one); stops when fn
 * returns false. Lines may end in LF, CRLF or CR. */
void lg_sse_each(const char *s, size_t len, bool (*fn)(const lg_sse_event *ev, void *ctx), void *ctx);

/* AWS event-stream frames read as a stream's events (src/classify/aws_eventstream.c). */
/* Reads the whole frames of the n bytes at b into c, until an error: an exception or error frame is the
 * stream's error (its type the code, its payload the error body), an event's payload a document read with
 * read (a chunk's decoded bytes, with their invocation metrics as usage). */
void lg_scan_aws_frames(lg_cls *c, const char *b, size_t n, bool http_error, lg_document_reader read);
/* Whether a frame is an exception or error; whether it is an event with content (neither messageStart, which
 * only names the role, nor initial-response). */
bool lg_aws_frame_is_error(const lg_aws_frame *f);
bool lg_aws_frame_is_content(const lg_aws_frame *f);

/* Usage objects (src/classify/usage.c): {prompt_tokens, completion_tokens} totals or Anthropic-style
 * {input_tokens, cache_*_input_tokens, output_tokens} fields, merged per field; Gemini's usageMetadata
 * counts. The counts of one object are first read into an lg_usage_fields. */
enum {
    LG_UF_PROMPT, LG_UF_COMPLETION, LG_UF_INPUT, LG_UF_CACHE_WRITE, LG_UF_CACHE_READ, LG_UF_OUTPUT,
    LG_UF_G_PROMPT, LG_UF_G_CANDIDATES, LG_UF_G_TOOL, LG_UF_G_THOUGHTS,
    LG_UF_TOTAL,     /* total_tokens */
    LG_UF_REASONING, /* completion_tokens_details.reasoning_tokens (a full parse reads it) */
    LG_UF_COUNT
};
typedef struct {
    int64_t v[LG_UF_COUNT];
    unsigned has; /* bit i: v[i] was present */
} lg_usage_fields;
/* Records the count of a member named key (not NUL-terminated) when it is one usage knows. */
void lg_usage_field(lg_usage_fields *f, const char *key, size_t key_len, int64_t v);
void lg_usage_fields_of(const cJSON *usage, lg_usage_fields *f);
void lg_usage_apply(lg_cls *c, const lg_usage_fields *f);
/* Whether the totals of f need no details: total_tokens, when given, is prompt + completion. Otherwise
 * (xAI leaves reasoning out of completion_tokens) the object is read by the full parse, which reads
 * completion_tokens_details. */
bool lg_usage_adds_up(const lg_usage_fields *f);
/* Records the counts of a Gemini usageMetadata object read into f: prompt + tool-use prompt, candidates +
 * thoughts; nothing when a count is negative or neither prompt nor candidates is given. */
void lg_usage_metadata_apply(lg_cls *c, const lg_usage_fields *f);
void lg_usage_object(lg_cls *c, const cJSON *usage);
/* Finds usage anywhere a provider puts it in one document and records it. */
void lg_usage_scan(lg_cls *c, const cJSON *doc);

/* Rate-limit header families (src/classify/ratelimit_headers.c; names and values read by rl_header.c): every
 * header whose name contains "ratelimit" or "rate-limit" / "rate_limit", grouped by what follows (dimension
 * and window), e.g.
 * x-ratelimit-{limit,remaining,reset}-tokens-minute, anthropic-ratelimit-input-tokens-{remaining,reset},
 * x-ratelimit-minute-{limit,remaining,reset}, x-ratelimit-remaining-req-minute. */
typedef enum { LG_WIN_NONE = 0, LG_WIN_SECOND, LG_WIN_MINUTE, LG_WIN_HOUR, LG_WIN_DAY, LG_WIN_WEEK, LG_WIN_MONTH } lg_window;
typedef struct {
    char key[LG_RLH_KEY]; /* the name without prefix and kind word: "tokens-minute", "input-tokens", "" */
    lg_dim dim;           /* LG_DIM_NONE when the name names none */
    lg_window window;     /* LG_WIN_NONE when the name names none */
    bool exhausted;       /* remaining is 0, or the status is "rejected" */
    bool has_reset;
    int64_t reset_ms, reset_at_ms; /* one is set when has_reset */
} lg_rl_family;
#define LG_RL_FAMILIES_MAX 16
/* Fills out[] with the families of r's headers that carry a value (families reporting -1 are left out);
 * returns how many. */
size_t lg_rl_families(const lg_response_view *r, lg_rl_family *out, size_t cap);
/* What the exhausted families of f[0..n) say: QUOTA for an hour or longer window, RATE for a second or
 * minute, LIMIT when their names give no window (a limit was hit, which one is not said). */
lg_sig lg_rl_window_signal(const lg_rl_family *f, size_t n);

/* Reset headers of the exhausted dimension (src/classify/header_hint.c); see classify.c for precedence. */
bool lg_header_retry_after(const lg_response_view *r, int64_t *ms, int64_t *at_ms);
bool lg_header_reset(const lg_rl_family *f, size_t n, lg_dim named, bool need_exhausted, int64_t *ms,
                     int64_t *at_ms);

/* A dialect's reader (each src/providers file defines one). The classifier offers each document to the
 * registered readers in their order, the reader that reads a dialect first before the others when the
 * response is of that dialect: providers' compatible endpoints borrow each other's envelopes. */
typedef struct {
    lg_dialect reads_first; /* the dialect whose documents this reader reads before the others; LG_DIALECT_NONE:
                             * none (the APIs without a dialect of their own, and OpenAI's reader, which takes
                             * the loosest shapes and so goes in its place even for its own dialect) */
    /* Whether doc is an error this reader recognises, recording what it says into c. http_error tells whether
     * the HTTP status is already an error (some shapes, such as a bare {"message": ...}, are only errors then). */
    bool (*read_error)(lg_cls *c, const cJSON *doc, bool http_error);
    const lg_code_table *codes; /* the dialect's structured codes and type names; NULL: none */
} lg_dialect_reader;

/* The readers' registry (src/classify/readers.c). lg_classify_use_readers is the single registration
 * point: src/providers hands its readers table over once when the library is loaded; readers[0..n) must
 * outlive every classification. Before it, the classifier reads documents without dialect readers. */
void lg_classify_use_readers(const lg_dialect_reader *const *readers, size_t n);
/* The registered readers, in the order documents are offered to them; *n their count. */
const lg_dialect_reader *const *lg_readers(size_t *n);
/* The reader that reads d's documents first, NULL when none does. */
const lg_dialect_reader *lg_reader_of(lg_dialect d);

#endif
