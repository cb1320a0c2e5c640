/* The figures of `llmgate usage` grouped by some of day, provider, account, model, program (cmd_usage.c),
 * and their HTML page (usage_html.c). */
#ifndef LLMGATE_CLI_USAGE_TABLE_H
#define LLMGATE_CLI_USAGE_TABLE_H

#include <stdbool.h>
#include <stddef.h>

#include "llmgate/spend.h"

#define KEYS_MAX 5 /* day, provider, account, model, program: the indices of group.key */

typedef struct {
    char key[KEYS_MAX][LG_SPEND_MODEL_MAX];
    lg_spend_counts c;
} group;

typedef struct {
    int by[KEYS_MAX], n_by; /* indices in key, in the order asked */
    group *g;
    size_t n, cap;
    group total;
    bool oom;
} table;

static inline double usd(int64_t nusd) { return (double)nusd / LG_NUSD_PER_USD; }

/* lg_spend_visit's visitor: row into the table ctx (its group, and the total). */
void lg_usage_collect(int64_t day, const lg_spend_row *row, void *ctx);

/* Writes the page of per_day (grouped by day) and per_account (by provider, account) to file: one
 * self-contained HTML file, charts as inline SVG, every bar carrying its figure (data-value); its days
 * those of zone ("UTC" or spend.time_zone's name). Returns the
 * exit status (1 after a line on stderr). */
int lg_usage_html(const char *file, table *per_day, table *per_account, const char *since, const char *zone);

#endif
