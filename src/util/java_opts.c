/* Java runtime options as the JVM reads them (see java_opts.h). */
#include <string.h>

#include "llmgate/java_opts.h"

bool lg_java_opt_last(const char *opts, const char *opt, char *out, size_t size)
{
    bool found = false;
    size_t ol = strlen(opt);
    for (const char *p = opts ? opts : ""; *p;) {
        p += strspn(p, " \t\n");
        size_t n = strcspn(p, " \t\n");
        if (n > ol && !strncmp(p, opt, ol) && n - ol < size) {
            memcpy(out, p + ol, n - ol);
            out[n - ol] = '\0';
            found = true;
        }
        p += n;
    }
    return found;
}

bool lg_java_trusts_relay(const char *tool_options, const char *override_options)
{
    char store[4200];
    bool named = lg_java_opt_last(tool_options, LG_JAVA_OPT_STORE, store, sizeof store);
    named = lg_java_opt_last(override_options, LG_JAVA_OPT_STORE, store, sizeof store) || named;
    const char *base = named ? strrchr(store, '/') : NULL;
    return base && strstr(base, ".pem" LG_JAVA_STORE_MARK);
}
