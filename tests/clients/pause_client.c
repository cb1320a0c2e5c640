/* A libcurl host that pauses its write callback (CURL_WRITEFUNC_PAUSE) every other call and unpauses from
 * its progress callback with curl_easy_pause(CURLPAUSE_CONT), as libcurl's documentation shows.
 * Usage: pause_client URL CONNECT_TO [held|stream|multi|multistream]; prints "rc=N status=N bytes=N pauses=N
 * unpauses=N" and writes the body it received to stdout after that line. "multi" runs the (held) request in
 * a multi handle (curl_multi_perform and curl_multi_poll) instead of curl_easy_perform; "multistream" runs
 * the streamed request there and unpauses from the multi loop (after its next poll) instead; "multiremove"
 * runs it there too but removes the handle at its first pause, then runs it again with curl_easy_perform on
 * the same handle, without pausing (the body printed is the second one). */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    CURL *h;
    int calls, pauses, unpauses;
    int paused;
    int nopause;
    char *body;
    size_t len;
} state;

static size_t on_write(char *p, size_t size, size_t n, void *data)
{
    state *s = data;
    if (!s->nopause && s->calls++ % 2 == 0) {
        s->pauses++;
        s->paused = 1;
        return CURL_WRITEFUNC_PAUSE;
    }
    char *b = realloc(s->body, s->len + size * n + 1);
    if (!b)
        return 0;
    memcpy(b + s->len, p, size * n);
    s->body = b;
    s->len += size * n;
    return size * n;
}

static int on_progress(void *data, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
    (void)dt, (void)dn, (void)ut, (void)un;
    state *s = data;
    if (s->paused) {
        s->paused = 0;
        s->unpauses++;
        curl_easy_pause(s->h, CURLPAUSE_CONT);
    }
    return 0;
}

/* Runs s's handle in a multi handle of its own to its end, or to its first pause when loop is 'r' (it is
 * removed then), unpausing it from the loop when loop is 'u'; its result. */
static CURLcode perform_multi(state *s, int loop)
{
    CURL *h = s->h;
    CURLM *m = curl_multi_init();
    CURLcode rc = CURLE_FAILED_INIT;
    if (!m || curl_multi_add_handle(m, h) != CURLM_OK)
        return rc;
    int running = 1;
    while (running) {
        if (curl_multi_perform(m, &running) != CURLM_OK)
            break;
        if (running)
            curl_multi_poll(m, NULL, 0, 20, NULL);
        if (loop == 'r' && s->paused)
            break;
        if (loop == 'u' && s->paused) {
            s->paused = 0;
            s->unpauses++;
            curl_easy_pause(h, CURLPAUSE_CONT);
        }
    }
    CURLMsg *msg;
    int left;
    while ((msg = curl_multi_info_read(m, &left)))
        if (msg->msg == CURLMSG_DONE && msg->easy_handle == h)
            rc = msg->data.result;
    curl_multi_remove_handle(m, h);
    curl_multi_cleanup(m);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    const char *mode = argc > 3 ? argv[3] : "held";
    int multiremove = !strcmp(mode, "multiremove");
    int multistream = multiremove || !strcmp(mode, "multistream");
    int stream = multistream || !strcmp(mode, "stream");
    state s = {.h = curl_easy_init()};
    struct curl_slist *headers = curl_slist_append(NULL, "Content-Type: application/json");
    struct curl_slist *connect_to = curl_slist_append(NULL, argv[2]);
    if (!s.h || !headers || !connect_to)
        return 1;
    curl_easy_setopt(s.h, CURLOPT_URL, argv[1]);
    curl_easy_setopt(s.h, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(s.h, CURLOPT_CONNECT_TO, connect_to);
    curl_easy_setopt(s.h, CURLOPT_POSTFIELDS,
                     stream ? "{\"model\":\"gpt-4o-mini\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"
                            : "{\"model\":\"gpt-4o-mini\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
    curl_easy_setopt(s.h, CURLOPT_WRITEFUNCTION, on_write);
    curl_easy_setopt(s.h, CURLOPT_WRITEDATA, &s);
    curl_easy_setopt(s.h, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(s.h, CURLOPT_XFERINFODATA, &s);
    curl_easy_setopt(s.h, CURLOPT_NOPROGRESS, multistream ? 1L : 0L);
    CURLcode rc = multistream || !strcmp(mode, "multi") ? perform_multi(&s, multiremove ? 'r' : multistream ? 'u' : 0)
                                                        : curl_easy_perform(s.h);
    if (multiremove) {
        s.nopause = 1;
        s.len = 0;
        rc = curl_easy_perform(s.h);
    }
    long code = 0;
    curl_easy_getinfo(s.h, CURLINFO_RESPONSE_CODE, &code);
    printf("rc=%d status=%ld bytes=%zu pauses=%d unpauses=%d\n", (int)rc, code, s.len, s.pauses, s.unpauses);
    if (s.len)
        fwrite(s.body, 1, s.len, stdout);
    free(s.body);
    curl_easy_cleanup(s.h);
    curl_slist_free_all(headers);
    curl_slist_free_all(connect_to);
    return rc == CURLE_OK ? 0 : 1;
}
