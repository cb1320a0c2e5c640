/* The mock provider's command line. */
#ifndef MOCK_OPTIONS_H
#define MOCK_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

typedef struct {
    int port;              /* 0: ephemeral */
    int tls_port;          /* -1: no TLS listener; 0: ephemeral */
    const char *port_file; /* NULL: none */
    const char *cert, *key;
    const char *scenario;  /* NULL: none */
    int64_t rpm, tpm, window_ms;
    int threads;
    bool openai_accounting; /* --accounting openai: prompt + requested output at admission (see docs/MOCK.md) */
    bool quiet;
    bool strict;            /* --strict: Anthropic and Gemini refuse bodies their real APIs refuse */
    bool no_rl_headers;     /* --no-ratelimit-headers: no default rate-limit headers for unlimited dimensions */
    bool has_seed;
    uint64_t seed;
} mock_options;

/* Parses argv into o (defaults first). Returns 0; 1 when --help was given (usage printed on stdout);
 * -1 after printing the problem and the usage on stderr. */
int mock_options_parse(int argc, char **argv, mock_options *o);

#endif
