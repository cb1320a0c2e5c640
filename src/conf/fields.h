/* The config's policy fields, each named once: one table row per field gives its JSON name, where it is
 * kept, its default, its bounds and what a wrong value is told it should be. The parser (config.c), the
 * defaults (config_defaults.c), the rendering (render.c) and lg_config_free read the table (and providers.c
 * a provider's "breaker" and "limits"); the man-page
 * check reads it through the parser's "unknown key (expected one of: ...)" message. */
#ifndef LLMGATE_CONF_FIELDS_H
#define LLMGATE_CONF_FIELDS_H

#include "conf/conf_internal.h"

#define CONF_FIELDS_MAX 16 /* most fields of one section, and most members of the top level */

/* How a field is written in JSON and kept in its struct. */
typedef enum {
    CONF_BOOL,        /* bool: true or false */
    CONF_INT,         /* int: an integer in [min, max] */
    CONF_INT64,       /* int64_t: an integer in [min, max] */
    CONF_NUMBER,      /* double: a number in [min, max], or in (min, max] when min_exclusive */
    CONF_SECONDS,     /* int64_t milliseconds, written as a number of seconds in [min, max] (a fraction of a
                       * millisecond rounds up) */
    CONF_MS_STEPS,    /* int64_t[LG_QUOTA_STEPS_MAX]: 1 to LG_QUOTA_STEPS_MAX integers in [min, max], their
                       * count a size_t at aux */
    CONF_TOKEN,       /* char[aux]: 1 to aux-1 printable ASCII characters without spaces */
    CONF_CHOICE,      /* an enum: the index of its name in names */
    CONF_CHOICE_TEXT, /* char[aux]: one of names, as text */
    CONF_NAME,        /* char[aux]: a name (conf_valid_name) of 1 to aux-1 bytes, else "expected WHAT"; "" when
                       * unset, then rendered null */
    CONF_PATH,        /* char * (owned, NULL when unset): a string of 1 to aux bytes */
} conf_kind;

/* One field of a section. Defaults are written as in JSON: seconds for CONF_SECONDS, an index into names
 * for the choices; a CONF_PATH's default is NULL. */
typedef struct {
    const char *name;          /* the JSON member name */
    conf_kind kind;
    size_t offset;             /* where it is kept, from the start of the section's struct */
    size_t aux;                /* see conf_kind */
    double min, max;           /* numeric kinds */
    bool min_exclusive;
    const char *what;          /* numeric kinds, CONF_NAME: "expected WHAT" */
    const char *const *names;  /* choices: the JSON names, in enum order, NULL-terminated */
    bool nullable;             /* CONF_PATH: null is accepted as unset and rendered when unset (else omitted) */
    bool redact_url;           /* CONF_PATH: rendered with a URL's user information as "***" */
    double def;                /* numeric kinds, CONF_BOOL (0 or 1), choices (an index) */
    const char *def_text;      /* CONF_TOKEN */
    const int64_t *def_steps;  /* CONF_MS_STEPS: the default steps, 0-terminated */
} conf_field;

/* One JSON object of fields ("retry", "breaker", ...) kept in one struct. */
typedef struct conf_section {
    const char *name;          /* the JSON member name at the top level */
    size_t offset;             /* of its struct in lg_config (a provider's section: unused) */
    const conf_field *fields;  /* in the order they are checked, rendered and listed in messages */
    size_t n_fields;
    /* Rules between fields, after they are read (NULL: none); obj is the JSON object, base its struct. */
    void (*check)(conf_ctx *cx, const cJSON *obj, const char *path, void *base);
} conf_section;

/* The top-level policy sections, in the order they are parsed and rendered (after "providers"). */
extern const conf_section *const conf_sections[];
extern const size_t conf_n_sections;
/* The "breaker" section, also read per provider over a copy of the top-level one. */
extern const conf_section conf_breaker_section;
/* A provider's "limits" (lg_limits). */
extern const conf_section conf_limits_section;

/* Reads the section's object obj at path into base (its struct): members present replace base's, the
 * others stay. Reports unknown and wrong members. */
void conf_parse_section(conf_ctx *cx, const cJSON *obj, const char *path, const conf_section *s, void *base);

/* Sets every field of the section s kept in base to its default. */
void conf_section_defaults(const conf_section *s, void *base);

#endif
