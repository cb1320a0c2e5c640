/* One reading of a provider's rate-limit header (src/classify/rl_header.c), shared by the limiter's learning
 * (src/limiter/learn.c) and the classifier's families (ratelimit_headers.c): the name recognised once into its
 * family key, dimension, window and kind, and one value reader per kind. Standalone (no lg_dim or lg_window
 * type here: limiter.h has its own of those names). */
#ifndef LLMGATE_CLASSIFY_RL_HEADER_H
#define LLMGATE_CLASSIFY_RL_HEADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/word.h"

#define LG_RLH_KEY 48

/* LG_RLH_TYPE: a header naming the limit that was hit (x-ratelimit-type: UserByModelByDay). */
typedef enum { LG_RLH_NO_KIND = 0, LG_RLH_LIMIT, LG_RLH_REMAINING, LG_RLH_RESET, LG_RLH_STATUS, LG_RLH_TYPE } lg_rlh_kind;

/* The families the limiter learns from, each under exactly one name per kind (any case):
 * x-ratelimit-{limit,remaining,reset}-{requests,tokens} and
 * anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-{limit,remaining,reset}. */
typedef enum {
    LG_RLH_INEXACT = 0,
    LG_RLH_OPENAI_REQUESTS,
    LG_RLH_OPENAI_TOKENS,
    LG_RLH_ANTHROPIC_REQUESTS,
    LG_RLH_ANTHROPIC_TOKENS,
    LG_RLH_ANTHROPIC_INPUT,
    LG_RLH_ANTHROPIC_OUTPUT,
    LG_RLH_EXACT_END
} lg_rlh_exact;

typedef struct {
    lg_rlh_kind kind;
    lg_rlh_exact exact;   /* LG_RLH_INEXACT unless the name is one of the limiter's exact families */
    int dim;              /* an lg_dim of classify/dialects.h (LG_DIM_NONE: the name names none) */
    int window;           /* an lg_window of classify/dialects.h (LG_WIN_NONE: the name names none) */
    char key[LG_RLH_KEY]; /* the words after the prefix but the kind, joined by '-': "tokens-minute", "";
                           * left empty by a reading with exact_only (the family names it) */
} lg_rlh_name;

/* Recognises the rate-limit header called name (NULL: none) into *out; false when it is not one. With
 * exact_only, only the limiter's exact families are wanted: any other name is rejected by its first
 * letters (see lg_rlh_may_be_exact), which is all the work an ordinary header costs on every response. */
bool lg_rlh_name_of(const char *name, bool exact_only, lg_rlh_name *out);

/* Whether name may be one of the limiter's exact families: it begins "x-ra" or "anth" (any case; the
 * compare stops at the first letter that differs, the NUL at the latest). The test every header name meets
 * on every response, inline; lg_rlh_name_of(name, true, ...) decides. */
static inline bool lg_rlh_may_be_exact(const char *name)
{
    char c = (char)(name[0] | 0x20);
    return c == 'x'   ? name[1] == '-' && (name[2] | 0x20) == 'r' && (name[3] | 0x20) == 'a'
           : c == 'a' ? (name[1] | 0x20) == 'n' && (name[2] | 0x20) == 't' && (name[3] | 0x20) == 'h'
                      : false;
}

/* Whether the n bytes at name (24 <= n <= 32) are the lowercase name lit of as many (letters and '-') in any
 * case: four 8-byte words compared, the last overlapping the one before (lit a constant: folded). */
static inline __attribute__((always_inline)) bool lg_rlh_is_name(const char *name, const char *lit, size_t n)
{
    return !(lg_word_differs(name, lit) | lg_word_differs(name + 8, lit + 8) | lg_word_differs(name + 16, lit + 16) |
             lg_word_differs(name + n - 8, lit + n - 8));
}

/* Which of OpenAI's six names, x-ratelimit-{limit,remaining,reset}-{requests,tokens} (any case), the n bytes
 * at name are: 1 + 4 * (family - LG_RLH_OPENAI_REQUESTS) + (kind - LG_RLH_LIMIT), so 1-3 the requests'
 * limit, remaining and reset, 5-7 the tokens' (a shift and a mask apart); 0 for any other name. The name's
 * length picks the one it may be (limit and reset, of the same length, by their first letter), then four
 * 8-byte words are compared with that one's (nothing outside the n bytes is read). Inline: the learning
 * (src/limiter/learn.c) asks it of each candidate name, the name reader (rl_header.c) of the names it is
 * handed. */
static inline __attribute__((always_inline)) int lg_rlh_openai_slot(const char *name, size_t n)
{
    bool limit = n >= 24 && (name[12] | 0x20) == 'l';
    switch (n) {
    case 24:
        return limit ? 5 * lg_rlh_is_name(name, "x-ratelimit-limit-tokens", 24)
                     : 7 * lg_rlh_is_name(name, "x-ratelimit-reset-tokens", 24);
    case 26:
        return limit ? 1 * lg_rlh_is_name(name, "x-ratelimit-limit-requests", 26)
                     : 3 * lg_rlh_is_name(name, "x-ratelimit-reset-requests", 26);
    case 28: return 6 * lg_rlh_is_name(name, "x-ratelimit-remaining-tokens", 28);
    case 30: return 2 * lg_rlh_is_name(name, "x-ratelimit-remaining-requests", 30);
    default: return 0;
    }
}

/* A count value: a decimal integer, optionally signed and preceded by blanks, followed by nothing but
 * spaces; false when v is not one. */
bool lg_rlh_count(const char *v, int64_t *out);

/* What a reset value is; *x is set for every form but LG_RLH_BAD. */
typedef enum {
    LG_RLH_BAD = 0,
    LG_RLH_DURATION, /* a Go duration ("6m0s", "7.66s", "20ms"): *x ms from now */
    LG_RLH_SECONDS,  /* plain seconds ("20", "11.38"): *x = seconds * 1000, which may be a Unix time */
    LG_RLH_RFC3339,  /* an RFC 3339 time: *x Unix ms */
    LG_RLH_HTTP_DATE /* an HTTP date: *x Unix ms */
} lg_rlh_reset_form;
lg_rlh_reset_form lg_rlh_reset(const char *v, int64_t *x);

#endif
