/* llmgate --version: the version, what it was built against, the library it preloads, the config in use. */
#include <limits.h>
#include <stdio.h>

#include <curl/curlver.h>
#include <openssl/crypto.h>
#include <openssl/opensslv.h>

#include "cli/commands.h"
#include "cli/libpath.h"
#include "llmgate/config.h"

#ifndef LG_VERSION
#error "LG_VERSION is defined by the Makefile (from debian/changelog)"
#endif

int lg_cmd_version(void)
{
    printf("llmgate %s\n", LG_VERSION);
    printf("built against: libcurl %s (headers; the host's own libcurl is used at run time), %s\n",
           LIBCURL_VERSION, OPENSSL_VERSION_TEXT);
    printf("OpenSSL at run time: %s\n", OpenSSL_version(OPENSSL_VERSION));
    char lib[PATH_MAX];
    printf("library: %s\n", lg_cli_find_library(lib, sizeof lib) ? lib : "not found (set LLMGATE_LIB)");
    lg_errors errs = {0};
    lg_config *c = lg_config_load(NULL, &errs);
    if (c)
        printf("config: %s\n", c->source);
    else
        printf("config: has problems (llmgate check-config shows them)\n");
    lg_config_free(c);
    lg_errors_free(&errs);
    puts("config search: $LLMGATE_CONFIG, $XDG_CONFIG_HOME/llmgate/config.json (~/.config/llmgate/config.json),\n"
         "               /etc/llmgate/config.json, else the built-in presets");
    return fflush(stdout) == 0 ? 0 : 1;
}
