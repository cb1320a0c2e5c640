/* The host's progress callback asked while llmgate holds a transfer (see progress.h). */
#include <string.h>

#include "hook/curl/progress.h"

bool lg_curl_progress_aborts(void *rec)
{
    const lg_curl_rec *r = rec;
    curl_off_t up = !r->postfields ? 0 : r->postsize >= 0 ? r->postsize : (curl_off_t)strlen(r->postfields);
    int rc = r->xferinfofn ? r->xferinfofn(r->progressdata, 0, 0, up, up)
                           : r->progressfn(r->progressdata, 0, 0, (double)up, (double)up);
    return rc != 0 && rc != CURL_PROGRESSFUNC_CONTINUE;
}
