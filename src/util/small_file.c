/* Reading a small regular file whole (see small_file.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "llmgate/small_file.h"

/* A buffer of size + 1 bytes holding the len bytes of old, old zeroed and freed (not realloc: the text may
 * hold a key, which must not stay behind in freed memory); NULL, old kept, when out of memory. */
static char *grown(char *old, size_t len, size_t size)
{
    char *buf = malloc(size + 1);
    if (!buf)
        return NULL;
    if (old) {
        memcpy(buf, old, len);
        explicit_bzero(old, len);
        free(old);
    }
    return buf;
}

/* Reads fd to its end into f->data, at most limit bytes, starting with room for expected + 1 bytes (one
 * more than the size fstat gave, to see the end without growing). Sets f->status on failure. */
static void read_all(int fd, size_t expected, size_t limit, lg_small_file *f)
{
    size_t room = expected < limit ? expected + 1 : limit, len = 0;
    char *buf = grown(NULL, 0, room);
    if (!buf) {
        f->status = LG_SMALL_FILE_NO_MEMORY;
        return;
    }
    while (len < limit) {
        if (len == room) {
            size_t more = room < limit / 2 ? room * 2 : limit;
            char *bigger = grown(buf, len, more);
            if (!bigger) {
                f->status = LG_SMALL_FILE_NO_MEMORY;
                break;
            }
            buf = bigger, room = more;
        }
        ssize_t r = read(fd, buf + len, room - len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            f->status = LG_SMALL_FILE_CANNOT_READ;
            f->error = errno;
        }
        if (r <= 0)
            break;
        len += (size_t)r;
    }
    if (f->status == LG_SMALL_FILE_OK && len > f->cap)
        f->status = LG_SMALL_FILE_TOO_LARGE;
    if (f->status != LG_SMALL_FILE_OK) {
        explicit_bzero(buf, len);
        free(buf);
        return;
    }
    buf[len] = '\0';
    f->data = buf;
    f->len = len;
}

bool lg_small_file_read(const char *path, int open_flags, size_t cap, int flags, lg_small_file *f)
{
    int saved_errno = errno;
    memset(f, 0, sizeof *f);
    f->cap = cap;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | open_flags);
    if (fd < 0) {
        f->status = LG_SMALL_FILE_CANNOT_OPEN;
        f->error = errno;
    } else if (fstat(fd, &f->st) != 0 || !S_ISREG(f->st.st_mode)) {
        f->status = LG_SMALL_FILE_NOT_REGULAR;
    } else if (!(flags & LG_SMALL_FILE_PREFIX) && (uintmax_t)f->st.st_size > cap) {
        f->status = LG_SMALL_FILE_TOO_LARGE;
    } else {
        /* one byte past the cap tells a file that grew beyond it since fstat */
        size_t limit = flags & LG_SMALL_FILE_PREFIX ? cap : cap + 1;
        size_t expected = (uintmax_t)f->st.st_size < limit ? (size_t)f->st.st_size : limit;
        read_all(fd, expected, limit, f);
    }
    if (fd >= 0)
        close(fd);
    errno = saved_errno;
    return f->status == LG_SMALL_FILE_OK;
}

void lg_small_file_free(lg_small_file *f)
{
    if (f->data) {
        explicit_bzero(f->data, f->len);
        free(f->data);
        f->data = NULL;
    }
}

const char *lg_small_file_problem(const lg_small_file *f, char *buf, size_t size)
{
    switch (f->status) {
    case LG_SMALL_FILE_OK: snprintf(buf, size, "%s", ""); break;
    case LG_SMALL_FILE_CANNOT_OPEN: snprintf(buf, size, "cannot open: %s", strerror(f->error)); break;
    case LG_SMALL_FILE_NOT_REGULAR: snprintf(buf, size, "not a regular file"); break;
    case LG_SMALL_FILE_TOO_LARGE: snprintf(buf, size, "larger than %zu bytes", f->cap); break;
    case LG_SMALL_FILE_CANNOT_READ: snprintf(buf, size, "cannot read: %s", strerror(f->error)); break;
    case LG_SMALL_FILE_NO_MEMORY: snprintf(buf, size, "out of memory"); break;
    }
    return buf;
}
