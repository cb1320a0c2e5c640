/* Reading a small regular file whole (a config, a key file, the persisted store, a mock scenario): open
 * without following into a terminal or blocking on a FIFO, refuse what is not a regular file, read until
 * the end of the file (short reads and EINTR) up to a size cap, and say what went wrong. */
#ifndef LLMGATE_SMALL_FILE_H
#define LLMGATE_SMALL_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

typedef enum {
    LG_SMALL_FILE_OK,
    LG_SMALL_FILE_CANNOT_OPEN, /* open failed: error holds its errno */
    LG_SMALL_FILE_NOT_REGULAR, /* fstat failed, or not a regular file */
    LG_SMALL_FILE_TOO_LARGE,   /* more than cap bytes (by its size, or by what a read found) */
    LG_SMALL_FILE_CANNOT_READ, /* a read failed: error holds its errno */
    LG_SMALL_FILE_NO_MEMORY,
} lg_small_file_status;

/* A file's text and what was found on the way. */
typedef struct {
    char *data; /* len bytes and a NUL, when status is OK; release with lg_small_file_free */
    size_t len;
    struct stat st; /* its status, for owner and permission checks (filled from NOT_REGULAR on) */
    lg_small_file_status status;
    int error;  /* errno of CANNOT_OPEN and CANNOT_READ */
    size_t cap; /* the cap it was read with */
} lg_small_file;

/* The flags of lg_small_file_read. */
enum {
    LG_SMALL_FILE_PREFIX = 1, /* a file longer than cap gives its first cap bytes instead of TOO_LARGE */
};

/* Reads the regular file at path whole into *f (at most cap bytes; see LG_SMALL_FILE_PREFIX). open_flags
 * are added to O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK (O_NOFOLLOW, say). True when f->status is OK;
 * else f->data is NULL. Keeps errno. */
bool lg_small_file_read(const char *path, int open_flags, size_t cap, int flags, lg_small_file *f);

/* Zeroes (the text may hold a key) and frees f->data; f->data becomes NULL. */
void lg_small_file_free(lg_small_file *f);

/* What went wrong, for a message "PATH: WHAT": "cannot open: No such file or directory", "not a regular
 * file", "larger than N bytes", "cannot read: ...", "out of memory" (empty when f->status is OK). */
const char *lg_small_file_problem(const lg_small_file *f, char *buf, size_t size);

#endif
