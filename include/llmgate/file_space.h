/* Disk space for a file that is mapped shared (the state store, the spend file): reserved before the map is
 * used, so that no store to the mapping can fault (SIGBUS) on a full disk. */
#ifndef LLMGATE_FILE_SPACE_H
#define LLMGATE_FILE_SPACE_H

#include <stdbool.h>
#include <sys/types.h>

/* Reserves disk space for the first len bytes of fd. A file still private to its maker (fresh) may be
 * reserved by writing zeros (posix_fallocate's fallback); a published one only by the kernel's fallocate (a
 * write would race with its users), and only when some of it is not allocated yet; a file system without
 * fallocate is then trusted. 0, or -1 with errno set (ENOSPC, EDQUOT, ...). */
int lg_file_reserve(int fd, off_t len, bool fresh);

#endif
