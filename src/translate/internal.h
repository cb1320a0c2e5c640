/* Shared pieces of the translators (src/translate/): the failure record, JSON helpers, data URLs and the
 * finish-reason table. OpenAI's form is the hub: each other dialect has a to-hub and a from-hub half. */
#ifndef LLMGATE_TRANSLATE_INTERNAL_H
#define LLMGATE_TRANSLATE_INTERNAL_H

#include <cjson/cJSON.h>

#include "llmgate/translate.h"

/* The first failure of one translation: status and reason (later failures keep the first). */
typedef struct {
    lg_tr_status st;
    char *reason; /* LG_TR_REASON_MAX bytes */
} tr_fail;

/* Records a failure (printf format); returns NULL so that callers can `return tr_err(...)`. */
void *tr_err(tr_fail *f, lg_tr_status st, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Refuses (LG_TR_REFUSED) because `what` has no equivalent in the target dialect. */
void *tr_refuse(tr_fail *f, const char *what, lg_tr_dialect to);

/* Member `name` of o when it is a string / number / object / array, else NULL. */
const char *tr_str(const cJSON *o, const char *name);
const cJSON *tr_num(const cJSON *o, const char *name);
/* The integer value of number v clamped to [lo, hi] (a fraction dropped), or dflt when v is NULL or not a
 * finite number: no cast of an absurd value is ever undefined. */
long tr_clamp(const cJSON *v, long lo, long hi, long dflt);
const cJSON *tr_obj(const cJSON *o, const char *name);
const cJSON *tr_arr(const cJSON *o, const char *name);
/* Adds a copy of member `name` of src to dst under `as` when present. */
void tr_copy(cJSON *dst, const char *as, const cJSON *src, const char *name);
/* Adds a number / string member (cJSON tolerates a NULL object: the caller checks the tree at the end). */
void tr_add_num(cJSON *o, const char *name, double v);
void tr_add_str(cJSON *o, const char *name, const char *v);
/* Appends the text of s to *acc (joined with sep); returns false when out of memory. */
bool tr_append(char **acc, const char *s, const char *sep);
/* Member `name` holds a value other than null/false/0/"" (a feature in use). */
bool tr_used(const cJSON *o, const char *name);
/* Refuses every member of req not named in `known` (a NULL-terminated list); true when all are known. */
bool tr_only_known(const cJSON *req, const char *const *known, lg_tr_dialect to, tr_fail *f);

/* Appends items to the last turn of turns (under member: "content" or "parts") when it has this role,
 * else as a new turn {role, member: items}: consecutive same-role turns merge. Takes items; drops an
 * empty list. */
void tr_push_turn(cJSON *turns, const char *role, cJSON *items, const char *member);
/* An OpenAI tool call {id, type: function, function: {name, arguments: args as JSON text}}. */
cJSON *tr_tool_call(const char *id, const char *name, const cJSON *args);
/* An OpenAI function tool from src's name and description and its member `params` as parameters. */
cJSON *tr_function_tool(const cJSON *src, const char *params);
/* Appends the OpenAI message {role, content: text} to msgs when text is not NULL; takes text. */
void tr_add_message(cJSON *msgs, const char *role, char *text);
/* Sets an OpenAI assistant message's content (text, or null) and tool_calls (when calls has any).
 * Takes text (malloc'd, may be NULL) and calls. */
void tr_set_assistant(cJSON *msg, char *text, cJSON *calls);
/* An OpenAI function tool as the target's declaration {name, description, params_as: parameters};
 * NULL with f set for another kind of tool or a tool without a name. */
cJSON *tr_declaration(const cJSON *tool, lg_tr_dialect to, const char *params_as, tr_fail *f);
/* An OpenAI image_url part holding the data URL of mime and base64 data; NULL when out of memory. */
cJSON *tr_image_url_part(const char *mime, const char *data);

/* A data URL "data:MIME;base64,DATA": writes the MIME type (mime_cap bytes) and points *data at the
 * base64 text. False for any other URL. */
bool tr_data_url(const char *url, char *mime, size_t mime_cap, const char **data);

/* Neutral finish reasons and their names in each dialect. */
typedef enum { TR_FIN_NONE, TR_FIN_STOP, TR_FIN_LENGTH, TR_FIN_TOOL, TR_FIN_FILTER, TR_FIN_STOP_SEQ } tr_finish;
tr_finish tr_finish_parse(lg_tr_dialect d, const char *name);
/* NULL for TR_FIN_NONE. */
const char *tr_finish_name(lg_tr_dialect d, tr_finish f);

/* Token counts in neutral form: prompt includes cached (OpenAI's sense), completion includes reasoning. */
typedef struct {
    bool present;
    long prompt, completion, cached, cache_write;
} tr_usage;
/* Reads / writes a usage object of dialect d (OpenAI usage, Anthropic usage, Gemini usageMetadata). */
tr_usage tr_usage_read(lg_tr_dialect d, const cJSON *u);
cJSON *tr_usage_make(lg_tr_dialect d, const tr_usage *u);

/* Whether the OpenAI request req can be translated to dialect to (req_openai.c): it uses only members the
 * translators know and none of the OpenAI features that no target has (logprobs, logit_bias, store, audio
 * output, n > 1 for Anthropic); false with f set otherwise. */
bool tr_openai_translatable(const cJSON *req, lg_tr_dialect to, tr_fail *f);

/* Request halves (req_anthropic.c, req_gemini.c): each returns a new tree or NULL with f set. The
 * to-hub halves produce an OpenAI request; the from-hub halves take one. */
cJSON *tr_req_openai_to_anthropic(const cJSON *req, const lg_tr_request_opts *o, tr_fail *f);
cJSON *tr_req_anthropic_to_openai(const cJSON *req, tr_fail *f);
cJSON *tr_req_openai_to_gemini(const cJSON *req, tr_fail *f);
cJSON *tr_req_gemini_to_openai(const cJSON *req, bool stream, tr_fail *f);

/* Anthropic assistant content (a string or text / tool_use blocks) as an OpenAI assistant message. With
 * f, another block is refused (f set); without, it is skipped (thinking in an answer). */
cJSON *tr_anthropic_assistant(const cJSON *content, tr_fail *f);

/* OpenAI's tool_choice: auto (also when absent), required, none, or one named function (*name set). */
typedef enum { TR_CHOICE_AUTO, TR_CHOICE_REQUIRED, TR_CHOICE_NONE, TR_CHOICE_NAMED, TR_CHOICE_BAD } tr_choice;
tr_choice tr_tool_choice(const cJSON *choice, const char **name);

/* Response halves (resp_anthropic.c, resp_gemini.c), the same way round. */
cJSON *tr_resp_anthropic_to_openai(const cJSON *r, const lg_tr_response_opts *o, tr_fail *f);
cJSON *tr_resp_openai_to_anthropic(const cJSON *r, tr_fail *f);
cJSON *tr_resp_gemini_to_openai(const cJSON *r, const lg_tr_response_opts *o, tr_fail *f);
cJSON *tr_resp_openai_to_gemini(const cJSON *r, tr_fail *f);

/* Error bodies (errors.c): the message of any dialect's error body, in the host's format for status. */
cJSON *tr_error_body(lg_tr_dialect host, int status, const char *body, size_t len);
/* The host's error body for status with msg; quota: a 429 that is a spent quota, not a rate limit. */
cJSON *tr_error_make(lg_tr_dialect host, int status, const char *msg, bool quota);

#endif
