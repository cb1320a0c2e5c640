/* A store file of another layout version met on open (see shm_version.h). */
#include <errno.h>
#include <unistd.h>

#include "llmgate/log.h"
#include "store/shm_version.h"

void lg_shm_note_foreign(int fd, const char *path)
{
    int saved = errno;
    struct {
        uint64_t magic;
        uint32_t version;
    } head;
    if (pread(fd, &head, sizeof head, 0) == (ssize_t)sizeof head && head.magic == LG_STORE_MAGIC &&
        head.version != LG_STORE_VERSION)
        lg_notice(&(bool){false}, "store-version", 0,
                  "the state store %s has layout version %u, this llmgate %u: replaced with a new one, never "
                  "written; processes of the other version keep their copy and do not share limits with this "
                  "one until they restart",
                  path, head.version, LG_STORE_VERSION);
    errno = saved;
}
