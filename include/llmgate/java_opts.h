/* Java runtime options as the JVM reads them from its environment (JAVA_TOOL_OPTIONS, _JAVA_OPTIONS):
 * whitespace-separated words, the last of one option winning. Shared by `llmgate run` (which names the
 * relay's trust store there) and the preload (which leads a Java runtime to the relay only when it does). */
#ifndef LLMGATE_JAVA_OPTS_H
#define LLMGATE_JAVA_OPTS_H

#include <stdbool.h>
#include <stddef.h>

#define LG_JAVA_OPT_STORE "-Djavax.net.ssl.trustStore="
#define LG_JAVA_OPT_PASS "-Djavax.net.ssl.trustStorePassword="
#define LG_JAVA_STORE_MARK ".java-" /* a trust store llmgate run made: <relay CA path>.java-<digest> */

/* The value of the last word of opts (NULL: none) that starts with opt and has a value shorter than
 * size, copied into out; false when there is none (out unchanged). */
bool lg_java_opt_last(const char *opts, const char *opt, char *out, size_t size);

/* True when the trust store a JVM started with this environment would use is one llmgate run made with
 * the relay's CA (the last -Djavax.net.ssl.trustStore of JAVA_TOOL_OPTIONS, overridden by _JAVA_OPTIONS,
 * which the JVM reads after it, names a file called <relay CA>.java-<digest>). */
bool lg_java_trusts_relay(const char *tool_options, const char *override_options);

#endif
