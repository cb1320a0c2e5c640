/* Command line parsing for llmgate-mock (see options.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mock/options.h"

static const char USAGE[] =
    "usage: llmgate-mock [--port N] [--port-file FILE] [--tls-port N --cert FILE --key FILE]\n"
    "                    [--scenario FILE] [--rpm N] [--tpm N] [--window-ms N] [--threads N]\n"
    "                    [--seed N] [--accounting default|openai] [--strict] [--no-ratelimit-headers]\n"
    "                    [--quiet]\n"
    "A mock LLM provider on 127.0.0.1 (see docs/MOCK.md). Port 0 picks a free port; the ports are\n"
    "printed as port=N / tls_port=N lines and written to --port-file once listening.\n"
    "  --rpm N, --tpm N   requests / tokens allowed per key per window (0: unlimited, default)\n"
    "  --no-ratelimit-headers  no rate-limit headers for an unlimited dimension (default: the OpenAI and\n"
    "                     Anthropic answers state 10000 requests and 2000000 tokens per window)\n"
    "  --window-ms N      sliding window length (default 60000)\n"
    "  --threads N        server threads (default 4)\n"
    "  --seed N           seed of the scenario's random errors\n"
    "  --accounting MODE  default: a request costs its usage; openai: its prompt plus the requested\n"
    "                     output limit, counted at admission and never refunded\n"
    "  --strict           Anthropic and Gemini refuse what their real APIs refuse (a system role in\n"
    "                     messages, roles not alternating, no max_tokens; OpenAI fields) with their 400\n";

/* Parses a decimal integer from min to max into *out; false when s is not one. */
static bool parse_int(const char *s, int64_t min, int64_t max, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < min || v > max)
        return false;
    *out = v;
    return true;
}

static int bad(const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, "llmgate-mock: ");
    fprintf(stderr, fmt, a, b);
    fprintf(stderr, "\n%s", USAGE);
    return -1;
}

/* Sets a numeric option: 1 when a is one and v is valid, -1 when v is invalid, 0 when a is not numeric. */
static int numeric_option(mock_options *o, const char *a, const char *v)
{
    static const struct {
        const char *name;
        int64_t min, max;
    } opts[] = {{"--port", 0, 65535},          {"--tls-port", 0, 65535},
                {"--rpm", 0, 1000000000},      {"--tpm", 0, 1000000000000LL},
                {"--window-ms", 1, 2592000000LL}, {"--threads", 1, 256},
                {"--seed", 0, INT64_MAX}};
    for (size_t i = 0; i < sizeof opts / sizeof *opts; i++) {
        int64_t n;
        if (strcmp(a, opts[i].name))
            continue;
        if (!parse_int(v, opts[i].min, opts[i].max, &n))
            return -1;
        switch (i) {
        case 0: o->port = (int)n; break;
        case 1: o->tls_port = (int)n; break;
        case 2: o->rpm = n; break;
        case 3: o->tpm = n; break;
        case 4: o->window_ms = n; break;
        case 5: o->threads = (int)n; break;
        default: o->seed = (uint64_t)n, o->has_seed = true; break;
        }
        return 1;
    }
    return 0;
}

int mock_options_parse(int argc, char **argv, mock_options *o)
{
    *o = (mock_options){.port = 18080, .tls_port = -1, .window_ms = 60000, .threads = 4};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(USAGE, stdout);
            return 1;
        }
        if (!strcmp(a, "--quiet")) {
            o->quiet = true;
            continue;
        }
        if (!strcmp(a, "--strict")) {
            o->strict = true;
            continue;
        }
        if (!strcmp(a, "--no-ratelimit-headers")) {
            o->no_rl_headers = true;
            continue;
        }
        if (strncmp(a, "--", 2))
            return bad("unexpected argument %s%s", a, "");
        if (i + 1 >= argc)
            return bad("%s%s: missing value", a, "");
        const char *v = argv[++i];
        int num = numeric_option(o, a, v);
        if (num < 0)
            return bad("%s: invalid value \"%s\"", a, v);
        if (num > 0)
            continue;
        if (!strcmp(a, "--port-file"))
            o->port_file = v;
        else if (!strcmp(a, "--cert"))
            o->cert = v;
        else if (!strcmp(a, "--key"))
            o->key = v;
        else if (!strcmp(a, "--scenario"))
            o->scenario = v;
        else if (!strcmp(a, "--accounting") && (!strcmp(v, "default") || !strcmp(v, "openai")))
            o->openai_accounting = !strcmp(v, "openai");
        else if (!strcmp(a, "--accounting"))
            return bad("%s: invalid value \"%s\"", a, v);
        else
            return bad("unknown option %s%s", a, "");
    }
    if (o->tls_port >= 0 && (!o->cert || !o->key))
        return bad("--tls-port needs --cert and --key%s%s", "", "");
    return 0;
}
