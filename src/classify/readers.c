/* The registry of dialect readers: the classifier reaches the dialects (src/providers) only through the
 * table registered here, so that they depend on the classifier and never the other way round. */
#include "classify/dialects.h"

static const lg_dialect_reader *const *registered;
static size_t registered_n;

void lg_classify_use_readers(const lg_dialect_reader *const *readers, size_t n)
{
    registered = readers;
    registered_n = n;
}

const lg_dialect_reader *const *lg_readers(size_t *n)
{
    *n = registered_n;
    return registered;
}

const lg_dialect_reader *lg_reader_of(lg_dialect d)
{
    for (size_t i = 0; d != LG_DIALECT_NONE && i < registered_n; i++)
        if (registered[i]->reads_first == d)
            return registered[i];
    return NULL;
}
