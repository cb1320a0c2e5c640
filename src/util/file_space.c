/* Disk space for a mapped file (see file_space.h). */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "llmgate/file_space.h"

int lg_file_reserve(int fd, off_t len, bool fresh)
{
    if (fresh) {
        int rc = posix_fallocate(fd, 0, len);
        errno = rc;
        return rc == 0 ? 0 : -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0)
        return -1;
    if ((off_t)st.st_blocks * 512 >= len || fallocate(fd, 0, 0, len) == 0 || errno == EOPNOTSUPP)
        return 0;
    return -1;
}
