/* What an ELF file on disk says about how a preload can reach it (read from its headers, never loaded). */
#ifndef LLMGATE_ELF_H
#define LLMGATE_ELF_H

#include <stdbool.h>

typedef struct {
    bool has_interp;  /* has a program interpreter (the dynamic loader runs for it) */
    bool go;          /* built by the Go toolchain (.go.buildinfo / .note.go.buildid) */
    bool own_tls;     /* defines SSL_read or SSL_write itself (a TLS library linked in, as Node.js does) */
    bool needs_curl;  /* a DT_NEEDED entry names libcurl */
    bool java;        /* a DT_NEEDED entry names libjli: the java launcher (the JVM's TLS is its own, JSSE) */
    bool rustls;      /* its symbol table (.symtab) names rustls: a Rust program with rustls compiled in */
    bool webpki_roots; /* ... and webpki-roots: its trusted roots compiled in too */
} lg_elf_facts;

/* Reads the facts of file (a 64-bit ELF of this machine's byte order). symbols: also scan the dynamic symbol
 * table for own_tls, and, when nothing else was found, the symbol table for rustls and webpki_roots. False when the file cannot be read or is no such ELF. Preserves errno. */
bool lg_elf_inspect(const char *file, bool symbols, lg_elf_facts *f);

#endif
