/* A plain HTTP/1.1 header block read a line at a time (memchr-like word scans for the line ends), for the
 * common case only: libhttp-parser stays the authority. A head this reader takes is one libhttp-parser
 * reads the same way (the same lines, names and values); anything else (folded or tab-laden lines, bare LF
 * line ends, unusual name characters, a head split over reads) is left to libhttp-parser whole. */
#ifndef LLMGATE_FRONT_H1_HEAD_H
#define LLMGATE_FRONT_H1_HEAD_H

#include <http_parser.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LG_H1_HEAD_LINES 48 /* a head with more header lines is left to libhttp-parser */

typedef struct {
    uint32_t off;       /* the line's first byte, from the head's start */
    uint32_t len;       /* its bytes, its CRLF included */
    uint32_t name_len;  /* its name's (before the colon) */
    uint32_t value_off; /* its value's first byte (after the colon and the spaces after it), from its start */
} lg_h1_hline;

typedef struct lg_h1_head {
    size_t len;       /* the head's bytes: start line, header lines and the blank line's CRLF */
    size_t start_len; /* the start line's, its CRLF included */
    size_t n;         /* header lines */
    lg_h1_hline lines[LG_H1_HEAD_LINES];
} lg_h1_head;

/* Splits the head at the start of the n bytes at p into h when all of it is there and it is plain: a start
 * line, not empty, ended by CRLF with no other control byte nor DEL (its contents are libhttp-parser's to
 * judge), then at most LG_H1_HEAD_LINES lines each
 * "Name:" (a name of ASCII letters, digits, '-' and '_'), spaces, a value of visible bytes (0x20-0x7e, or
 * 0x80 and above: no tab, no control byte) and CRLF, then CRLF. False otherwise (h is then undefined). */
bool lg_h1_head_split(const char *p, size_t n, lg_h1_head *h);

/* The line reader's scans. lg_h1_first_special: the first byte of [q, end) below 0x20 or 0x7f (a control
 * byte or DEL), or end; lg_h1_name_end: the first byte of [q, end) that is not an ASCII letter, a digit, '-'
 * or '_', or end. Each reads 16 bytes at a time with SSE2 on x86-64 (unless LG_H1_HEAD_PORTABLE), then (and
 * elsewhere) its _words form, 8 bytes at a time: the form the unit test checks them against. */
const char *lg_h1_first_special(const char *q, const char *end);
const char *lg_h1_first_special_words(const char *q, const char *end);
const char *lg_h1_name_end(const char *q, const char *end);
const char *lg_h1_name_end_words(const char *q, const char *end);

/* True when libhttp-parser may read header name (len bytes, at least one) for the message's framing or the
 * connection's life: a name that begins with Content-Length, Transfer-Encoding, Connection,
 * Proxy-Connection or Upgrade, in any case (it takes "Transfer-Encodingg" for a transfer coding). Such
 * lines must go through it. */
bool lg_h1_head_framing(const char *name, size_t len);

/* Feeds libhttp-parser (hp, with settings s) the plain head h at p as it must read it: its start line and
 * the lines lg_h1_head_framing names, in their order, then its blank line; the other lines are the
 * caller's. Stops at the parser's first error (or pause). */
void lg_h1_head_feed(http_parser *hp, const http_parser_settings *s, const char *p, const lg_h1_head *h);

/* True when line l of the head at p reads "Name: value\r\n" exactly as libhttp-parser's fields rebuild it
 * (one space after the colon, the value right after it). */
bool lg_h1_head_canonical(const char *p, const lg_h1_hline *l);

#endif
