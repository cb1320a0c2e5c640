/* llmgate help [COMMAND] and llmgate COMMAND --help: the help text of each command, in one table. */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"

static const struct {
    const char *name, *text;
} pages[] = {
    {"run", "usage: llmgate run [--config FILE] [--] CMD [ARGS]\n"
            "  Runs CMD with libllmgate.so first in LD_PRELOAD (what LD_PRELOAD held is kept after it).\n"
            "  --config FILE  check FILE and pass it on as LLMGATE_CONFIG (the command does not run when\n"
            "                 the configuration has problems)\n"
            "  The library is $LLMGATE_LIB, else libllmgate.so beside llmgate, else ../lib/llmgate/\n"
            "  from it. A statically linked CMD is named on stderr: LD_PRELOAD cannot reach it.\n"
            "  A Go program, one with its own TLS library (Node.js), a Java runtime or a Rust program\n"
            "  with rustls is gated through the relay of the configuration (llmgate relay, started on\n"
            "  demand, shared): a Go program gets it as its HTTPS_PROXY and the local CA in SSL_CERT_FILE;\n"
            "  the provider connections of the others are sent there by the preload, the CA added to\n"
            "  NODE_EXTRA_CA_CERTS, to a copy of the JVM's trust store named at the end of\n"
            "  JAVA_TOOL_OPTIONS, or (rustls, in the form its verifier reads) to SSL_CERT_FILE. One line\n"
            "  on stderr says so. A rustls program with compiled-in roots is named there and runs ungated.\n"
            "exit status: CMD's own; 2 usage, bad configuration or no library; 127 CMD not found\n"},
    {"relay", "usage: llmgate relay [--config FILE] [--port N] [--addr-file PATH] [--idle SECONDS] [--name]\n"
              "       llmgate relay --listen ADDRESS:PORT [--config FILE] [--idle SECONDS]\n"
              "  Runs the relay in the foreground on 127.0.0.1 (llmgate run starts one on demand): an\n"
              "  HTTPS proxy (CONNECT, with a per-relay secret as the proxy password) that terminates a\n"
              "  provider's TLS with a certificate of the local CA and gates its requests as the preload\n"
              "  does, over its own TLS to the provider, verified against the system's trust store; any\n"
              "  other host is tunnelled byte for byte. Keys are read when it starts.\n"
              "  --port N          the port (default: any free one)\n"
              "  --addr-file PATH  write \"PORT SECRET PID\" there (0600) once it listens, its CA to PATH.ca.pem\n"
              "  --idle SECONDS    exit after that long without a connection (default 0: never)\n"
              "  --name            print the name the relay of FILE has in the runtime directory\n"
              "  --listen ADDRESS:PORT  gateway mode: plain HTTP there, a client's base URL\n"
              "                    http://ADDRESS:PORT/PROVIDER/... (PROVIDER a name of the configuration);\n"
              "                    with gateway.tokens configured every client must send one as its API\n"
              "                    key (else 401), replaced by an account's key; off loopback they are\n"
              "                    required; on loopback without them only this user's clients are\n"
              "                    admitted (the owner of the client's socket, else 403)\n"
              "exit status: 0; 1 it cannot listen or make its CA; 2 usage or bad configuration\n"},
    {"ca", "usage: llmgate ca show|rotate|remove [--config FILE]\n"
           "  The relay's local CA ($XDG_STATE_HOME/llmgate/relay-ca.pem, its key relay-ca.key 0600),\n"
           "  made at first use and whenever the providers' host names change; its name constraints\n"
           "  permit only those names. show: where it is and what it permits; rotate: a new one now\n"
           "  (running relays keep theirs until they exit); remove: delete it. llmgate never installs\n"
           "  it in the system's trust store.\n"
           "exit status: 0; 1 it cannot be made or removed; 2 usage or bad configuration\n"},
    {"status", "usage: llmgate status [--config FILE] [--wide|--json|--prometheus] [--textfile PATH] [--watch [SECONDS]]\n"
               "  Shows each provider's accounts (by name, never keys): window usage against the limits,\n"
               "  cooldown with its reason (QUOTA_EXHAUSTED/billing: set aside, out of credit; /key-refused:\n"
               "  its key refused), consecutive failures and counters, in 120 columns.\n"
               "  --wide          the cooldown's end time and the reasons' and counters' full names\n"
               "  --json          one JSON document\n"
               "  --prometheus    the Prometheus text exposition format (with this machine's usage and\n"
               "                  cost per provider and account, and per model: the 20 dearest, \"other\")\n"
               "  --textfile PATH write the Prometheus format to PATH atomically (a temporary file in the\n"
               "                  same directory, renamed over PATH), for node_exporter's textfile\n"
               "                  collector from cron; implies --prometheus\n"
               "  --watch [S]     redraw every S seconds (default 2)\n"
               "exit status: 0; 1 the state cannot be read or PATH not written; 2 usage\n"},
    {"classify", "usage: llmgate classify [--provider NAME] FILE...\n"
                 "       llmgate classify --provider NAME < raw-http-response\n"
                 "  Prints one JSON object per response: state, reason, detail (\"billing\": out of credit),\n"
                 "  retry_after_ms, usage, message.\n"
                 "  FILE is a fixture JSON ({provider, status, headers, body}); without FILE a raw HTTP\n"
                 "  response is read from stdin.\n"
                 "exit status: 0; 1 a file could not be read or classified; 2 usage\n"},
    {"check-config", "usage: llmgate check-config [FILE]\n"
                     "  Validates FILE (default: $LLMGATE_CONFIG, $XDG_CONFIG_HOME/llmgate/config.json,\n"
                     "  /etc/llmgate/config.json) and prints the effective configuration as JSON, with keys\n"
                     "  shown only as env:NAME, file:PATH or literal:DIGEST; else every problem found.\n"
                     "exit status: 0 valid; 1 problems; 2 usage\n"},
    {"reset", "usage: llmgate reset [--config FILE] [PROVIDER[/ACCOUNT] | --budget NAME]\n"
              "  Clears cooldowns (a set-aside for billing or a refused key too) and failure counts by hand:\n"
              "  every account's, one provider's, or one account's, in the shared store and in the saved\n"
              "  cooldowns file.\n"
              "  --budget NAME  lifts the budget NAME until its period (hour, day, month) ends\n"
              "exit status: 0; 1 no such provider or account, or the state cannot be changed; 2 usage\n"},
    {"route", "usage: llmgate route [--config FILE] [--provider NAME] [--program NAME] [--header NAME]... FILE\n"
              "  A dry run of the routing rules (\"routes\") on the request body in FILE (- for stdin), as\n"
              "  the program would send it to provider NAME (default openai): prints the rule it takes, then\n"
              "  the provider, URL, model and body that would be sent (translated when the rule sends it to\n"
              "  another dialect), or the local answer of a refusal. Nothing is sent.\n"
              "  --program NAME  the host program's name to match (default: none)\n"
              "  --header NAME   a header the request carries (repeatable)\n"
              "exit status: 0; 1 bad configuration, unknown provider or unreadable FILE; 2 usage\n"},
    {"usage", "usage: llmgate usage [--config FILE] [--since 7d|24h|YYYY-MM-DD] [--by KEYS] [--json|--csv|--html FILE]\n"
              "  What the gated programs used and cost per day (UTC, or the config's spend.time_zone),\n"
              "  from the spend state every process adds to (with the redis store: the fleet's totals,\n"
              "  this machine's unpushed spend pushed first): requests, input, cached and output\n"
              "  tokens, cost in USD (priced from the price\n"
              "  table: data/prices.json and the config's \"prices\"), 429s absorbed, time waited;\n"
              "  requests of a model without a price are counted as unpriced, estimated usage as estimated.\n"
              "  --since  the first day counted: 7d (default: today and the 6 days before), 24h, a date\n"
              "  --by     grouping keys, comma-separated, of provider, account, model, program, day\n"
              "           (default provider,model)\n"
              "  --json, --csv  machine-readable (with a total in --json)\n"
              "  --html FILE    one self-contained page: cost, requests, 429s absorbed and waits per day,\n"
              "                 cost and requests per account, drawn as inline SVG\n"
              "exit status: 0; 1 the spend state cannot be read; 2 usage\n"},
    {"version", "usage: llmgate --version | -V | version\n"
                "  Prints the version, the libcurl and OpenSSL it was built against, the library llmgate\n"
                "  run would preload and the configuration file in effect.\n"
                "exit status: 0\n"},
    {"help", "usage: llmgate help [COMMAND]\n"
             "  Prints the help of COMMAND, or the list of commands.\n"
             "exit status: 0; 2 unknown command\n"},
};

static const char overview[] =
    "usage: llmgate COMMAND [ARGS]\n"
    "  run [--config FILE] -- CMD [ARGS]   run CMD with llmgate preloaded\n"
    "  relay [--config FILE]               the relay for Go, Node.js and Java programs, in the foreground\n"
    "  relay --listen ADDR:PORT            the gateway: plain HTTP to http://ADDR:PORT/PROVIDER/...\n"
    "  ca show|rotate|remove               the relay's local certificate authority\n"
    "  status [--json|--prometheus|--watch] show accounts, cooldowns and counters\n"
    "  classify [--provider NAME] FILE...  classify responses (fixture JSON, or raw HTTP on stdin)\n"
    "  check-config [FILE]                 validate and print the effective configuration\n"
    "  reset [PROVIDER[/ACCOUNT]]          clear cooldowns by hand (all, a provider's, or one account's)\n"
    "  reset --budget NAME                 lift a spent budget until its period ends\n"
    "  route [--provider NAME] FILE        which routing rule a request body takes, what would be sent\n"
    "  usage [--since 7d] [--by KEYS]      usage and cost per day, provider, account, model, program\n"
    "  help [COMMAND]                      the help of one command\n"
    "  --version, -V                       version, build and where the library and config are\n"
    "See llmgate(1) and llmgate.json(5).\n";

int lg_usage(FILE *f)
{
    fputs(overview, f);
    return f == stderr ? 2 : 0;
}

int lg_help(const char *command)
{
    if (!command)
        return lg_usage(stdout);
    for (size_t i = 0; i < sizeof pages / sizeof pages[0]; i++)
        if (!strcmp(pages[i].name, command)) {
            fputs(pages[i].text, stdout);
            return 0;
        }
    fprintf(stderr, "llmgate: no command '%s'\n", command);
    return lg_usage(stderr);
}
