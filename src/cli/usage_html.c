/* llmgate usage --html FILE: one self-contained page (no script, no external resource) with the usage's
 * charts drawn as inline SVG: cost, requests, 429s absorbed and time waited per day; cost and requests per
 * account. Every bar carries its label and figure (data-label, data-value) for a reader and for tests. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/usage_table.h"

#define CHART_W 720
#define CHART_H 220
#define PAD_L 70
#define PAD_B 60

/* s with & < > " ' escaped. */
static void esc(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default: fputc(*s, f);
        }
    }
}

typedef double (*figure_fn)(const lg_spend_counts *c);
static double cost(const lg_spend_counts *c) { return usd(c->cost_nusd); }
static double requests(const lg_spend_counts *c) { return (double)c->requests; }
static double limited(const lg_spend_counts *c) { return (double)c->limited; }
static double waited(const lg_spend_counts *c) { return (double)c->waited_ms / 1000.0; }

/* The label of group g in t: its keys joined by "/". */
static void label_of(const table *t, const group *g, char *out, size_t cap)
{
    size_t len = 0;
    out[0] = '\0';
    for (int j = 0; j < t->n_by && len < cap; j++)
        len += (size_t)snprintf(out + len, cap - len, "%s%s", j ? "/" : "", g->key[t->by[j]]);
}

/* One bar chart of fig over t's groups, in their order. */
static void chart(FILE *f, const char *id, const char *title, const char *unit, const table *t, figure_fn fig)
{
    double max = 0;
    for (size_t i = 0; i < t->n; i++)
        if (fig(&t->g[i].c) > max)
            max = fig(&t->g[i].c);
    fprintf(f, "<h2>");
    esc(f, title);
    fprintf(f, "</h2>\n<svg id=\"%s\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
               "viewBox=\"0 0 %d %d\" role=\"img\">\n",
            id, CHART_W, CHART_H, CHART_W, CHART_H);
    int plot_w = CHART_W - PAD_L - 10, plot_h = CHART_H - PAD_B - 10;
    fprintf(f, "<line x1=\"%d\" y1=\"10\" x2=\"%d\" y2=\"%d\" stroke=\"#888\"/>\n", PAD_L, PAD_L, 10 + plot_h);
    fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#888\"/>\n", PAD_L, 10 + plot_h,
            PAD_L + plot_w, 10 + plot_h);
    fprintf(f, "<text x=\"%d\" y=\"16\" font-size=\"11\" text-anchor=\"end\">%.6g %s</text>\n", PAD_L - 4, max, unit);
    fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"end\">0</text>\n", PAD_L - 4, 10 + plot_h);
    size_t n = t->n ? t->n : 1;
    double slot = (double)plot_w / (double)n, bw = slot * 0.7;
    for (size_t i = 0; i < t->n; i++) {
        double v = fig(&t->g[i].c), h = max > 0 ? v / max * plot_h : 0;
        double x = PAD_L + slot * (double)i + (slot - bw) / 2;
        char label[4 * LG_SPEND_MODEL_MAX];
        label_of(t, &t->g[i], label, sizeof label);
        fprintf(f, "<rect class=\"bar\" data-label=\"");
        esc(f, label);
        fprintf(f, "\" data-value=\"%.9f\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#3b7dd8\">"
                   "<title>", v, x, 10 + plot_h - h, bw, h);
        esc(f, label);
        fprintf(f, ": %.6g %s</title></rect>\n", v, unit);
        fprintf(f, "<text x=\"%.1f\" y=\"%d\" font-size=\"10\" text-anchor=\"end\" transform=\"rotate(-35 %.1f %d)\">",
                x + bw / 2, 24 + plot_h, x + bw / 2, 24 + plot_h);
        esc(f, label);
        fprintf(f, "</text>\n");
    }
    fprintf(f, "</svg>\n");
}

static int by_key(const void *a, const void *b)
{
    const group *x = a, *y = b;
    for (int i = 0; i < KEYS_MAX; i++) {
        int c = strcmp(x->key[i], y->key[i]);
        if (c)
            return c;
    }
    return 0;
}

int lg_usage_html(const char *file, table *per_day, table *per_account, const char *since, const char *zone)
{
    int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        fprintf(stderr, "llmgate: %s: %s\n", file, strerror(errno));
        if (fd >= 0)
            close(fd);
        return 1;
    }
    if (per_day->n)
        qsort(per_day->g, per_day->n, sizeof *per_day->g, by_key);
    if (per_account->n)
        qsort(per_account->g, per_account->n, sizeof *per_account->g, by_key);
    const lg_spend_counts *t = &per_day->total.c;
    fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>llmgate usage since %s</title>\n"
               "<style>body{font-family:sans-serif;margin:2em;color:#222}h2{font-size:1.05em;margin-top:1.6em}"
               "table{border-collapse:collapse}td,th{padding:.2em .8em;text-align:right;border-bottom:1px solid #ddd}"
               "</style></head><body>\n<h1>llmgate usage since %s (days of ", since, since);
    esc(f, zone);
    fprintf(f, ")</h1>\n");
    fprintf(f, "<table id=\"total\"><tr><th>requests</th><th>input tokens</th><th>cached</th><th>output tokens</th>"
               "<th>cost USD</th><th>429s absorbed</th><th>waited s</th><th>unpriced</th><th>estimated</th>"
               "<th>refused by budget</th></tr>\n<tr><td data-value=\"%llu\">%llu</td><td>%llu</td><td>%llu</td>"
               "<td>%llu</td><td data-value=\"%.9f\">%.6f</td><td>%llu</td><td>%.1f</td><td>%llu</td><td>%llu</td>"
               "<td>%llu</td></tr></table>\n",
            (unsigned long long)t->requests, (unsigned long long)t->requests, (unsigned long long)t->input,
            (unsigned long long)t->cached, (unsigned long long)t->output, usd(t->cost_nusd), usd(t->cost_nusd),
            (unsigned long long)t->limited, (double)t->waited_ms / 1000.0, (unsigned long long)t->unpriced,
            (unsigned long long)t->estimated, (unsigned long long)t->refused);
    chart(f, "cost-per-day", "Cost per day", "USD", per_day, cost);
    chart(f, "requests-per-day", "Requests per day", "requests", per_day, requests);
    chart(f, "cost-per-account", "Cost per account", "USD", per_account, cost);
    chart(f, "requests-per-account", "Requests per account", "requests", per_account, requests);
    chart(f, "limited-per-day", "429s absorbed per day", "429s", per_day, limited);
    chart(f, "waited-per-day", "Time waited per day", "s", per_day, waited);
    fprintf(f, "</body></html>\n");
    if (fclose(f) != 0) {
        fprintf(stderr, "llmgate: %s: %s\n", file, strerror(errno));
        return 1;
    }
    return 0;
}
