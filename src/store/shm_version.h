/* Processes of two llmgate versions on one machine (issue 33, item 5): a file of another layout version is
 * never read nor written (map_valid refuses it) but replaced by a new file renamed into place, which the
 * other version's processes already mapped never see; each side goes on, its limits not shared with the
 * other's, and says so in one line. Private to src/store. */
#ifndef LLMGATE_STORE_SHM_VERSION_H
#define LLMGATE_STORE_SHM_VERSION_H

#include "store/layout.h"

/* One notice line when the file open as fd (at path) has our magic and another layout version; nothing
 * else (a corrupt or foreign file is rebuilt silently as before). Reads the header only. errno is kept. */
void lg_shm_note_foreign(int fd, const char *path);

#endif
