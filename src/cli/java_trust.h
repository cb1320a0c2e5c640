/* The trust `llmgate run` gives a Java program of the relay (JSSE reads one trust store, which replaces
 * the JDK's roots: the store it would use is copied and the local CA added to the copy). */
#ifndef LLMGATE_CLI_JAVA_TRUST_H
#define LLMGATE_CLI_JAVA_TRUST_H

#include <stdbool.h>
#include <stddef.h>

/* Leads the Java runtime whose launcher is java to trust the CA certificate in the file ca as well as
 * what it trusted: a copy of its trust store (the one JAVA_TOOL_OPTIONS names with
 * -Djavax.net.ssl.trustStore, with its -Djavax.net.ssl.trustStorePassword, else its JDK's jssecacerts or
 * cacerts) with ca added by the JDK's keytool, kept in the state directory beside the CA (made again when
 * the store or ca changes), named at the end of JAVA_TOOL_OPTIONS, after what the user set there. False,
 * with a message in err, when it cannot be made (JAVA_TOOL_OPTIONS is left as it was). */
bool lg_cli_java_trust(const char *java, const char *ca, char *err, size_t errlen);

#endif
