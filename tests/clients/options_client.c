/* A libcurl host that uses options the other clients do not, one case per run, for
 * tests/integration/test_curl_options.sh. Each perform prints one line:
 *   LABEL rc=CURLcode code=HTTP dl=SIZE_DOWNLOAD hdr=HEADER_SIZE type=CONTENT_TYPE err=[ERRORBUFFER] got=N body=TEXT
 * (got: bytes the write callback took; body: what it took, newlines as '|', at most 100 bytes).
 *
 * usage: options_client CASE URL CONNECT_TO KEY
 *   mutate     POSTFIELDS from a buffer the host rewrites between two performs without setting it again
 *   readfn     the body from a read callback (POSTFIELDSIZE known, no seek callback), then with a seek callback
 *   readplain  the body from a read callback (no seek callback), then the same handle to the address of
 *              CONNECT_TO (no provider's host: the host's own read callback reads the body again)
 *   httpget    a POST, then CURLOPT_HTTPGET on the same handle
 *   nobody     CURLOPT_NOBODY (a HEAD request)
 *   dup        a perform, then curl_easy_duphandle of the handle and a perform of the duplicate
 *   dupwait    the handle in a multi (perform + poll); 300 ms in, curl_easy_duphandle of it; the multi's
 *              transfer to its end ("multi"), then a perform of the duplicate ("dup")
 *   header     CURLOPT_HEADER: the header block in the body
 *   short      a write callback that takes nothing (the host aborts the transfer)
 *   pause      a write callback that pauses once (CURL_WRITEFUNC_PAUSE); a progress callback unpauses
 *   maxfile    CURLOPT_MAXFILESIZE smaller than the answer */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BODY "{\"model\":\"gpt-4o-mini\",\"max_tokens\":16,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"

typedef struct {
    char text[101];
    size_t got, text_len;
    int refuse;  /* take nothing */
    int pauses;  /* pause this many more times */
    int paused;  /* a pause is pending: the progress callback unpauses */
    CURL *h;
} sink;

static size_t on_write(char *p, size_t size, size_t n, void *ud)
{
    sink *s = ud;
    size_t len = size * n;
    if (s->refuse)
        return 0;
    if (s->pauses > 0) {
        s->pauses--;
        s->paused = 1;
        return CURL_WRITEFUNC_PAUSE;
    }
    for (size_t i = 0; i < len && s->text_len < sizeof s->text - 1; i++)
        s->text[s->text_len++] = p[i] == '\n' || p[i] == '\r' ? '|' : p[i];
    s->got += len;
    return len;
}

static int on_progress(void *ud, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow)
{
    (void)dltotal, (void)dlnow, (void)ultotal, (void)ulnow;
    sink *s = ud;
    if (s->paused) {
        s->paused = 0;
        curl_easy_pause(s->h, CURLPAUSE_CONT);
    }
    return 0;
}

typedef struct {
    const char *data;
    size_t len, off;
} source;

static size_t on_read(char *p, size_t size, size_t n, void *ud)
{
    source *src = ud;
    size_t len = size * n, left = src->len - src->off;
    if (len > left)
        len = left;
    memcpy(p, src->data + src->off, len);
    src->off += len;
    return len;
}

static int on_seek(void *ud, curl_off_t offset, int origin)
{
    source *src = ud;
    if (origin != SEEK_SET || offset < 0 || (size_t)offset > src->len)
        return CURL_SEEKFUNC_FAIL;
    src->off = (size_t)offset;
    return CURL_SEEKFUNC_OK;
}

/* A POST of h whose body (of a known size, no seek callback) the read callback takes from src. */
static void post_from(CURL *h, source *src)
{
    curl_easy_setopt(h, CURLOPT_POST, 1L);
    curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE, (long)src->len);
    curl_easy_setopt(h, CURLOPT_READFUNCTION, on_read);
    curl_easy_setopt(h, CURLOPT_READDATA, src);
}

static char errbuf[CURL_ERROR_SIZE];

/* Prints the line of a transfer of h that ended with rc. */
static void report(CURL *h, const char *label, CURLcode rc, const sink *s)
{
    long code = -1, hdr = -1;
    curl_off_t dl = -1;
    char *type = NULL;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
    curl_easy_getinfo(h, CURLINFO_HEADER_SIZE, &hdr);
    curl_easy_getinfo(h, CURLINFO_SIZE_DOWNLOAD_T, &dl);
    curl_easy_getinfo(h, CURLINFO_CONTENT_TYPE, &type);
    printf("%s rc=%d code=%ld dl=%ld hdr=%ld type=%s err=[%s] got=%zu body=%s\n", label, (int)rc, code, (long)dl, hdr,
           type ? type : "-", errbuf, s->got, s->text);
}

/* Sets h up to write into s, emptied first, with the error buffer. */
static void prepare(CURL *h, sink *s)
{
    int refuse = s->refuse, pauses = s->pauses;
    memset(s, 0, sizeof *s);
    s->refuse = refuse;
    s->pauses = pauses;
    s->h = h;
    errbuf[0] = '\0';
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_write);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, s);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
}

/* Performs h with a fresh sink s and prints the line. */
static void run(CURL *h, const char *label, sink *s)
{
    prepare(h, s);
    report(h, label, curl_easy_perform(h), s);
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* dupwait: h runs in a multi; dup_after_ms in, the host duplicates it; returns the duplicate. */
static CURL *multi_dup(CURL *h, sink *s, double dup_after_ms)
{
    CURLM *m = curl_multi_init();
    CURL *d = NULL;
    prepare(h, s);
    curl_multi_add_handle(m, h);
    double t0 = now_ms();
    for (int running = 1; running;) {
        curl_multi_perform(m, &running);
        if (!d && now_ms() - t0 >= dup_after_ms)
            d = curl_easy_duphandle(h);
        if (running)
            curl_multi_poll(m, NULL, 0, 100, NULL);
    }
    int left;
    CURLMsg *msg = curl_multi_info_read(m, &left);
    report(h, "multi", msg ? msg->data.result : (CURLcode)-1, s);
    curl_multi_remove_handle(m, h);
    curl_multi_cleanup(m);
    return d;
}

int main(int argc, char **argv)
{
    if (argc != 5)
        return 2;
    const char *c = argv[1];
    char auth[256];
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", argv[4]);
    struct curl_slist *hdrs = curl_slist_append(curl_slist_append(NULL, auth), "Content-Type: application/json");
    struct curl_slist *connect_to = curl_slist_append(NULL, argv[3]);
    CURL *h = curl_easy_init();
    if (!h || !hdrs || !connect_to)
        return 1;
    curl_easy_setopt(h, CURLOPT_URL, argv[2]);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdrs);
    curl_easy_setopt(h, CURLOPT_CONNECT_TO, connect_to);
    sink s = {0};
    char buf[] = BODY;
    source src = {.data = BODY, .len = strlen(BODY)};
    if (!strcmp(c, "mutate")) {
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, buf);
        run(h, "first", &s);
        memcpy(strstr(buf, "\"hi\""), "\"yo\"", 4);
        run(h, "rewritten", &s);
    } else if (!strcmp(c, "readfn")) {
        post_from(h, &src);
        run(h, "noseek", &s);
        src.off = 0;
        curl_easy_setopt(h, CURLOPT_SEEKFUNCTION, on_seek);
        curl_easy_setopt(h, CURLOPT_SEEKDATA, &src);
        run(h, "seek", &s);
    } else if (!strcmp(c, "readplain")) {
        post_from(h, &src);
        run(h, "provider", &s);
        const char *addr = strchr(strchr(argv[3], ':') + 1, ':'); /* HOST:PORT:ADDR:PORT */
        char url[300];
        snprintf(url, sizeof url, "http://%s/v1/chat/completions", addr ? addr + 1 : "");
        curl_easy_setopt(h, CURLOPT_URL, url);
        src.off = 0;
        run(h, "plain", &s);
    } else if (!strcmp(c, "httpget")) {
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, BODY);
        run(h, "post", &s);
        curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
        run(h, "get", &s);
    } else if (!strcmp(c, "nobody")) {
        curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
        run(h, "head", &s);
    } else if (!strcmp(c, "dup")) {
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, BODY);
        run(h, "orig", &s);
        CURL *d = curl_easy_duphandle(h);
        run(d, "dup", &s);
        run(h, "orig-again", &s);
        curl_easy_cleanup(d);
    } else if (!strcmp(c, "dupwait")) {
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, BODY);
        CURL *d = multi_dup(h, &s, 300);
        if (d)
            run(d, "dup", &s);
        curl_easy_cleanup(d);
    } else if (!strcmp(c, "header")) {
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, BODY);
        curl_easy_setopt(h, CURLOPT_HEADER, 1L);
        run(h, "header", &s);
    } else if (!strcmp(c, "short")) {
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, BODY);
        s.refuse = 1;
        run(h, "short", &s);
    } else if (!strcmp(c, "pause")) {
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, BODY);
        curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
        curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
        curl_easy_setopt(h, CURLOPT_XFERINFODATA, &s);
        s.pauses = 1;
        run(h, "pause", &s);
    } else if (!strcmp(c, "maxfile")) {
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, BODY);
        curl_easy_setopt(h, CURLOPT_MAXFILESIZE, 20L);
        run(h, "maxfile", &s);
    } else {
        return 2;
    }
    curl_easy_cleanup(h);
    curl_slist_free_all(hdrs);
    curl_slist_free_all(connect_to);
    return 0;
}
