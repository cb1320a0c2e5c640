/* A threaded libcurl host program for the integration tests: THREADS threads each make REQUESTS
 * requests on one reused easy handle and check that every response body arrived exactly once and intact.
 *
 * usage: threaded_client [options] URL
 *   -t THREADS  -n REQUESTS  -H "Header: v" (repeatable)  -d BODY (POST)
 *   --reset      curl_easy_reset the handle between requests (options set again)
 *   --dup        each request runs on curl_easy_duphandle of a template handle
 *   --free-headers  free the header list right after each perform (a new list per request)
 * Prints one line: "requests=N ok=N status2xx=N status429=N other=N curl_errors=N intact=N unique_ids=N".
 * Exit status 0 when every request got a 2xx with an intact body and all ids are distinct. */
#include <curl/curl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_HEADERS 16

static const char *url, *body;
static const char *headers[MAX_HEADERS];
static int n_headers, threads = 4, requests = 10, do_reset, do_dup, free_headers;

typedef struct {
    char *data;
    size_t len;
} buf;

typedef struct {
    int ok, s2xx, s429, other, curl_errors, intact;
    char **ids;
    int n_ids;
} tally;

static size_t on_write(char *p, size_t size, size_t n, void *ud)
{
    buf *b = ud;
    size_t len = size * n;
    char *grown = realloc(b->data, b->len + len + 1);
    if (!grown)
        return 0;
    b->data = grown;
    memcpy(b->data + b->len, p, len);
    b->len += len;
    b->data[b->len] = '\0';
    return len;
}

/* The value of the first "id" field, or NULL. A body with two ids (delivered twice) is not intact. */
static char *body_id(const buf *b, int *count)
{
    *count = 0;
    char *first = NULL;
    for (const char *p = b->data; p && (p = strstr(p, "\"id\"")) != NULL; p += 4) {
        (*count)++;
        if (!first) {
            const char *q = strchr(p + 4, '"');
            const char *e = q ? strchr(q + 1, '"') : NULL;
            if (e)
                first = strndup(q + 1, (size_t)(e - q - 1));
        }
    }
    return first;
}

static struct curl_slist *make_headers(void)
{
    struct curl_slist *l = NULL;
    for (int i = 0; i < n_headers; i++)
        l = curl_slist_append(l, headers[i]);
    return l;
}

static void set_options(CURL *h, buf *b, struct curl_slist *l)
{
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_write);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, b);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, l);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    if (body)
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
}

static void one_request(CURL *h, CURL *tmpl, tally *t)
{
    buf b = {0};
    struct curl_slist *l = make_headers();
    CURL *use = h;
    if (do_dup) {
        set_options(tmpl, &b, l);
        use = curl_easy_duphandle(tmpl);
    } else {
        if (do_reset)
            curl_easy_reset(h);
        set_options(h, &b, l);
    }
    CURLcode rc = curl_easy_perform(use);
    if (free_headers) {
        curl_slist_free_all(l);
        l = NULL;
        curl_easy_setopt(use, CURLOPT_HTTPHEADER, NULL);
    }
    long code = 0;
    curl_easy_getinfo(use, CURLINFO_RESPONSE_CODE, &code);
    if (rc != CURLE_OK)
        t->curl_errors++;
    else if (code >= 200 && code < 300)
        t->s2xx++;
    else if (code == 429)
        t->s429++;
    else
        t->other++;
    int count;
    char *id = body_id(&b, &count);
    if (rc == CURLE_OK && code >= 200 && code < 300 && id && count == 1 && b.data[b.len - 1] != '\0') {
        t->intact++;
        t->ids[t->n_ids++] = id;
        id = NULL;
        t->ok++;
    }
    free(id);
    if (do_dup)
        curl_easy_cleanup(use);
    curl_slist_free_all(l);
    free(b.data);
}

static void *worker(void *arg)
{
    tally *t = arg;
    t->ids = calloc((size_t)requests, sizeof *t->ids);
    CURL *h = curl_easy_init();
    CURL *tmpl = do_dup ? curl_easy_init() : NULL;
    for (int i = 0; i < requests; i++)
        one_request(h, tmpl, t);
    curl_easy_cleanup(h);
    if (tmpl)
        curl_easy_cleanup(tmpl);
    return NULL;
}

static int cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-t") && i + 1 < argc) threads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-n") && i + 1 < argc) requests = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-H") && i + 1 < argc && n_headers < MAX_HEADERS) headers[n_headers++] = argv[++i];
        else if (!strcmp(argv[i], "-d") && i + 1 < argc) body = argv[++i];
        else if (!strcmp(argv[i], "--reset")) do_reset = 1;
        else if (!strcmp(argv[i], "--dup")) do_dup = 1;
        else if (!strcmp(argv[i], "--free-headers")) free_headers = 1;
        else url = argv[i];
    }
    if (!url || threads < 1 || requests < 1) {
        fputs("usage: threaded_client [-t N] [-n N] [-H H]... [-d BODY] [--reset|--dup|--free-headers] URL\n", stderr);
        return 2;
    }
    curl_global_init(CURL_GLOBAL_DEFAULT);
    pthread_t tid[threads];
    tally *t = calloc((size_t)threads, sizeof *t);
    for (int i = 0; i < threads; i++)
        pthread_create(&tid[i], NULL, worker, &t[i]);
    tally sum = {0};
    char **all = calloc((size_t)threads * (size_t)requests, sizeof *all);
    for (int i = 0; i < threads; i++) {
        pthread_join(tid[i], NULL);
        sum.ok += t[i].ok, sum.s2xx += t[i].s2xx, sum.s429 += t[i].s429, sum.other += t[i].other;
        sum.curl_errors += t[i].curl_errors, sum.intact += t[i].intact;
        for (int k = 0; k < t[i].n_ids; k++)
            all[sum.n_ids++] = t[i].ids[k];
        free(t[i].ids);
    }
    qsort(all, (size_t)sum.n_ids, sizeof *all, cmp);
    int unique = sum.n_ids > 0;
    for (int i = 1; i < sum.n_ids; i++)
        unique += strcmp(all[i], all[i - 1]) != 0;
    printf("requests=%d ok=%d status2xx=%d status429=%d other=%d curl_errors=%d intact=%d unique_ids=%d\n",
           threads * requests, sum.ok, sum.s2xx, sum.s429, sum.other, sum.curl_errors, sum.intact, unique);
    for (int i = 0; i < sum.n_ids; i++)
        free(all[i]);
    free(all);
    free(t);
    curl_global_cleanup();
    return sum.ok == threads * requests && unique == sum.ok ? 0 : 1;
}
