/* Side table keyed by easy handle: what the host set on it, as far as llmgate needs to know. */
#ifndef LLMGATE_HOOK_CURL_RECORDS_H
#define LLMGATE_HOOK_CURL_RECORDS_H

#include <stdbool.h>
#include <stdio.h>
#include <uthash.h>

#include "hook/base/curl_real.h"
#include "llmgate/config.h"

struct lg_curl_xfer;

/* CURLOPT_PROGRESSFUNCTION by its number: the name is deprecated, hosts (PHP) still set it. */
#define LG_CURLOPT_PROGRESSFUNCTION ((CURLoption)(CURLOPTTYPE_FUNCTIONPOINT + 56))

typedef struct {
    CURL *handle;
    unsigned gen;                /* changes whenever the host sets an option llmgate shapes or reads */
    char *url;                   /* copy of CURLOPT_URL */
    const lg_provider *prov;     /* provider of the URL's host, NULL = not ours */
    struct curl_slist *headers;  /* the host's CURLOPT_HTTPHEADER list (never modified or freed by us) */
    const char *postfields;      /* CURLOPT_POSTFIELDS (host memory) */
    char *copied_postfields;     /* our copy when the host used CURLOPT_COPYPOSTFIELDS */
    curl_off_t postsize;         /* -1: strlen */
    bool post, upload;           /* CURLOPT_POST / CURLOPT_UPLOAD: without postfields the body is read */
    curl_read_callback readfn;   /* CURLOPT_READFUNCTION, NULL: libcurl's default (fread) */
    void *readdata;              /* CURLOPT_READDATA, default stdin */
    curl_off_t infilesize;       /* CURLOPT_INFILESIZE(_LARGE), -1: unknown (the size of an upload's body) */
    bool has_seekfn;
    curl_seek_callback seekfn;
    void *seekdata;
    curl_write_callback writefn; /* NULL: libcurl's default (fwrite) */
    void *writedata;             /* default stdout */
    curl_write_callback headerfn;
    void *headerdata;
    curl_prereq_callback prereqfn; /* CURLOPT_PREREQFUNCTION, NULL: none */
    void *prereqdata;
    long header_opt;             /* CURLOPT_HEADER */
    long failonerror;
    long timeout_ms;             /* CURLOPT_TIMEOUT(_MS): the host's limit for a transfer, 0 = none */
    long followlocation;
    char *xoauth2;               /* CURLOPT_XOAUTH2_BEARER copy */
    char *errorbuffer;           /* CURLOPT_ERRORBUFFER (host memory) */
    long verbose;                /* CURLOPT_VERBOSE */
    curl_debug_callback debugfn; /* CURLOPT_DEBUGFUNCTION, NULL: libcurl's default output */
    void *debugdata;
    FILE *stderr_fp;             /* CURLOPT_STDERR, NULL: stderr */
    long noprogress;             /* CURLOPT_NOPROGRESS (default 1) */
    curl_xferinfo_callback xferinfofn; /* CURLOPT_XFERINFOFUNCTION, NULL: none */
    curl_progress_callback progressfn; /* CURLOPT_PROGRESSFUNCTION, NULL: none (libcurl prefers xferinfofn) */
    void *progressdata;          /* CURLOPT_XFERINFODATA (CURLOPT_PROGRESSDATA is the same option) */
    /* What getinfo must report after a perform that llmgate shaped: what the host got from llmgate. */
    bool info_override;
    bool info_synth;             /* the response was llmgate's own (a refusal): JSON, Content-Length ours */
    bool info_unsent;            /* no request went out in that exchange (REQUEST_SIZE 0) */
    bool info_none;              /* no response reached the host (it gave the request up while llmgate waited):
                                  * no type, length or Retry-After */
    long info_status;
    long info_retry_after_s;
    long info_header_size;       /* bytes of the header block delivered; -1: none kept, libcurl's count */
    curl_off_t info_body_len;    /* body bytes delivered (SIZE_DOWNLOAD) */
    curl_off_t info_content_length; /* of the synthesized body (CONTENT_LENGTH_DOWNLOAD when info_synth) */
    struct lg_mxfer *multi_xfer; /* the multi front end's transfer while the handle is in a multi (kept
                                  * by curl_easy_reset: the multi's table points at it) */
    struct lg_curl_xfer *kept;   /* the easy front end's, kept between performs (lg_xfer_kept) */
    bool delivery_paused;        /* (atomic) the host's write callback paused what llmgate delivers: until
                                  * its curl_easy_pause(CURLPAUSE_CONT) (lg_curl_emit_body) */
    char *rest;                  /* in a multi: the final answer's body not yet delivered when the host's write
                                  * callback paused it, or a stream's bytes it paused (rest_len bytes; lg_curl_emit_rest), else NULL */
    size_t rest_len;
    size_t stream_skip;          /* in a multi: bytes at the start of the chunk libcurl holds for a paused stream
                                  * (lg_relay_write paused it) that the relay already took: dropped when libcurl
                                  * delivers them again */
    UT_hash_handle hh;
} lg_curl_rec;

/* The calling thread's last lookup: a host calls several hooks per transfer on one handle in a row. It is
 * good while no record was freed since (lg_rec_removals, the count of records freed so far). */
typedef struct {
    CURL *h;
    lg_curl_rec *r;
    unsigned removals;
} lg_rec_last;
extern __attribute__((tls_model("initial-exec"))) _Thread_local lg_rec_last lg_rec_last_found;
extern unsigned lg_rec_removals;

/* lg_rec_get through the table (its lock and hash), remembered as the thread's last lookup when found. */
lg_curl_rec *lg_rec_find(CURL *h, bool create);

/* The record of h, created with defaults when create is set (NULL on allocation failure or absent). The
 * thread's last lookup answers again without the table. */
static inline lg_curl_rec *lg_rec_get(CURL *h, bool create)
{
    const lg_rec_last *l = &lg_rec_last_found;
    if (l->r && l->h == h && l->removals == __atomic_load_n(&lg_rec_removals, __ATOMIC_ACQUIRE))
        return l->r;
    return lg_rec_find(h, create);
}
/* What the multi front end does with a handle it holds (a record's multi_xfer) when the host resets or
 * cleans the handle up. src/hook/multi registers it before it sets a first multi_xfer; the handle's hooks
 * read it only for a record that has one, so that src/hook/curl never calls into src/hook/multi. */
typedef struct {
    void (*detach)(struct lg_mxfer *t);                   /* curl_easy_reset: lg_mxfer_detach */
    void (*cancel)(struct lg_mxfer *t, bool remove_real); /* curl_easy_cleanup: lg_mxfer_cancel */
} lg_rec_multi_ops;
/* Registers the multi front end's ops (the same table every time). */
void lg_rec_multi_ops_register(const lg_rec_multi_ops *ops);
/* The registered ops; set whenever some record's multi_xfer is. */
const lg_rec_multi_ops *lg_rec_multi_ops_get(void);

/* Forgets h (curl_easy_cleanup). */
void lg_rec_remove(CURL *h);
/* Resets h's record to libcurl's defaults (curl_easy_reset); multi_xfer stays. */
void lg_rec_reset(CURL *h);
/* Gives dst a deep copy of src's record (curl_easy_duphandle). */
void lg_rec_clone(CURL *src, CURL *dst);
/* Replaces a string field with a copy of s (NULL allowed). */
void lg_rec_set_str(char **field, const char *s);

#endif
