/* A streaming libcurl host program: POSTs once and checks every chunk its write callback receives.
 * usage: stream_client [-H HEADER]... [-d BODY] [-c CONNECT_TO] [--event] URL
 * Writes the body it received to stdout; on stderr one line:
 *   "status=S chunks=N bad_utf8=U bad_event=E bytes=B ttfb_us=T" (T: from perform to the first body byte)
 * bad_utf8 counts chunks that end inside a UTF-8 character (or hold invalid UTF-8); with --event,
 * bad_event counts chunks (but the last) that do not end after a blank line. */
#include <curl/curl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
    struct timespec start, first;
    int chunks, bad_utf8, bad_event;
    size_t bytes;
    bool last_ended_event;
} tally;

/* True when p[0..len) is a sequence of whole, valid UTF-8 characters. */
static bool whole_utf8(const unsigned char *p, size_t len)
{
    size_t i = 0;
    while (i < len) {
        unsigned char c = p[i];
        size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
        if (n == 0 || i + n > len)
            return false;
        for (size_t k = 1; k < n; k++)
            if ((p[i + k] & 0xC0) != 0x80)
                return false;
        i += n;
    }
    return true;
}

static size_t on_write(char *p, size_t size, size_t n, void *ud)
{
    tally *t = ud;
    size_t len = size * n;
    if (t->chunks++ == 0)
        clock_gettime(CLOCK_MONOTONIC, &t->first);
    t->bytes += len;
    t->bad_utf8 += !whole_utf8((const unsigned char *)p, len);
    bool ends = len >= 2 && p[len - 1] == '\n' && p[len - 2] == '\n';
    if (t->chunks > 1 && !t->last_ended_event)
        t->bad_event++;
    t->last_ended_event = ends;
    fwrite(p, 1, len, stdout);
    return len;
}

int main(int argc, char **argv)
{
    const char *url = NULL, *body = "{\"stream\":true}";
    bool event = false;
    struct curl_slist *headers = NULL, *connect_to = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-H") && i + 1 < argc) headers = curl_slist_append(headers, argv[++i]);
        else if (!strcmp(argv[i], "-d") && i + 1 < argc) body = argv[++i];
        else if (!strcmp(argv[i], "-c") && i + 1 < argc) connect_to = curl_slist_append(connect_to, argv[++i]);
        else if (!strcmp(argv[i], "--event")) event = true;
        else url = argv[i];
    }
    if (!url) {
        fputs("usage: stream_client [-H HEADER]... [-d BODY] [-c CONNECT_TO] [--event] URL\n", stderr);
        return 2;
    }
    curl_global_init(CURL_GLOBAL_DEFAULT);
    CURL *h = curl_easy_init();
    tally t = {0};
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(h, CURLOPT_CONNECT_TO, connect_to);
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_write);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &t);
    clock_gettime(CLOCK_MONOTONIC, &t.start);
    CURLcode rc = curl_easy_perform(h);
    long status = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    fflush(stdout);
    long long ttfb = t.chunks ? (long long)(t.first.tv_sec - t.start.tv_sec) * 1000000 +
                                    (t.first.tv_nsec - t.start.tv_nsec) / 1000
                              : -1;
    fprintf(stderr, "status=%ld chunks=%d bad_utf8=%d bad_event=%d bytes=%zu ttfb_us=%lld\n", status, t.chunks,
            t.bad_utf8, event ? t.bad_event : 0, t.bytes, ttfb);
    curl_easy_cleanup(h);
    curl_slist_free_all(headers);
    curl_slist_free_all(connect_to);
    curl_global_cleanup();
    return rc == CURLE_OK ? 0 : 1;
}
