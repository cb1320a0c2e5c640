/* The private directory of the default store location. Private to src/store. */
#ifndef LLMGATE_STORE_PATH_H
#define LLMGATE_STORE_PATH_H

#include <stddef.h>

#include "llmgate/store.h"

/* Makes sure the directory holding `file` exists (created 0700) and is private: a real directory owned
 * by us without group/other access. Returns 0, or -1 with a message in err. */
int lg_store_private_dir(const char *file, char *err, size_t errlen);

#endif
