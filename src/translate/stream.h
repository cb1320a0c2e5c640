/* The stream translator's pieces: target events are parsed into neutral events (stream_parse.c), which
 * an emitter writes in the host's dialect (stream_emit_*.c); stream.c buffers bytes into whole SSE events. */
#ifndef LLMGATE_TRANSLATE_STREAM_H
#define LLMGATE_TRANSLATE_STREAM_H

#include "translate/internal.h"

typedef enum { TR_EV_START, TR_EV_TEXT, TR_EV_TOOL_START, TR_EV_TOOL_ARGS, TR_EV_FINISH, TR_EV_USAGE, TR_EV_END,
               TR_EV_ERROR } tr_ev_kind;

/* One neutral event of the first choice. Strings are borrowed for the call. */
typedef struct {
    tr_ev_kind kind;
    const char *id, *model; /* START */
    const char *text;       /* TEXT, TOOL_ARGS (a piece of the arguments' JSON), ERROR (the message) */
    const char *name;       /* TOOL_START: function name; id is the call id */
    int index;              /* TOOL_START, TOOL_ARGS: the tool call's index in the message */
    tr_finish finish;       /* FINISH */
    tr_usage usage;         /* USAGE: the totals so far */
    int status;             /* ERROR: an HTTP status for the error's kind */
} tr_ev;

#define TR_MAX_BLOCKS 64
#define TR_ID_MAX 128

/* What a parser remembers between events. */
typedef struct {
    bool started;
    int tools;                    /* tool calls seen */
    int block_tool[TR_MAX_BLOCKS]; /* Anthropic: content block index -> tool index + 1 (0 = not a tool) */
    tr_usage usage;
} tr_parse_state;

/* What an emitter remembers between events. */
typedef struct {
    char id[TR_ID_MAX], model[TR_ID_MAX];
    int block;          /* Anthropic host: index of the open content block, -1 = none */
    bool block_is_text; /* Anthropic host: the open block is text */
    int blocks;         /* Anthropic host: blocks opened so far */
    tr_finish finish;
    tr_usage usage;
    cJSON *calls;       /* Gemini host: function calls being assembled [{name, args}] */
} tr_emit_state;

struct lg_tr_stream;
/* Sends one host event: "event: NAME\n" when name, then "data: " and the JSON (deleted) or raw text. */
bool tr_stream_send(struct lg_tr_stream *s, const char *name, cJSON *json, const char *raw);

/* Parses one target SSE event's data into neutral events passed to emit_ev; false when the data is not
 * JSON of the dialect (or emit_ev failed). */
bool tr_parse_event(lg_tr_dialect target, tr_parse_state *ps, const char *data, struct lg_tr_stream *s,
                    bool (*emit_ev)(struct lg_tr_stream *, const tr_ev *));

/* Keeps a FINISH's reason or a USAGE's counts in es for the end of the stream; true. */
bool tr_emit_remember(tr_emit_state *es, const tr_ev *ev);

/* Writes one neutral event in the host's dialect through tr_stream_send. */
bool tr_emit_openai(struct lg_tr_stream *s, tr_emit_state *es, const lg_tr_stream_opts *o, const tr_ev *ev);
bool tr_emit_anthropic(struct lg_tr_stream *s, tr_emit_state *es, const tr_ev *ev);
bool tr_emit_gemini(struct lg_tr_stream *s, tr_emit_state *es, const tr_ev *ev);

#endif
