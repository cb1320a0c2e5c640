/* The dialect readers table: every dialect's reader in the order the classifier offers a document to them,
 * handed to the classifier (lg_classify_use_readers) when the library or program is loaded. The APIs
 * without a dialect of their own that state failure in a status field of a 200 body (MiniMax, Spark,
 * Tencent) follow Baidu's; OpenAI's reader goes last because it accepts the loosest shapes. */
#include "providers/readers.h"

static const lg_dialect_reader *const readers[] = {
    &lg_anthropic_reader, &lg_google_reader,    &lg_baidu_reader,    &lg_minimax_reader,
    &lg_spark_reader,     &lg_tencent_reader,   &lg_dashscope_reader, &lg_openai_reader,
};

/* Runs when the object is loaded, before any classification: two stores, no I/O, errno untouched. */
__attribute__((constructor)) static void register_readers(void)
{
    lg_classify_use_readers(readers, sizeof readers / sizeof readers[0]);
}
