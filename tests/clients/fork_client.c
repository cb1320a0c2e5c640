/* A host that uses libcurl, then forks children that use it too (a pre-forking server, a cron wrapper).
 * usage: fork_client -c CHILDREN -n REQUESTS [-H HEADER]... [-d BODY] URL
 * The parent performs one request, forks CHILDREN children that each perform REQUESTS requests on a new
 * handle of their own, then one more itself, and prints "ok=N failed=M" over all of them. (Children never
 * share the parent's handle: its kept-alive connection cannot serve several processes at once.)
 * Exit 0 when every request got a 2xx. */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *url, *body;
static struct curl_slist *headers;

static size_t sink(char *p, size_t size, size_t n, void *ud)
{
    (void)p;
    (void)ud;
    return size * n;
}

/* One request on h; true on a 2xx. */
static int one(CURL *h)
{
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, sink);
    if (body)
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
    long code = 0;
    return curl_easy_perform(h) == CURLE_OK && curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code) == CURLE_OK &&
           code >= 200 && code < 300;
}

int main(int argc, char **argv)
{
    int children = 4, requests = 5;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-c") && i + 1 < argc) children = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-n") && i + 1 < argc) requests = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-H") && i + 1 < argc) headers = curl_slist_append(headers, argv[++i]);
        else if (!strcmp(argv[i], "-d") && i + 1 < argc) body = argv[++i];
        else url = argv[i];
    }
    if (!url)
        return 2;
    curl_global_init(CURL_GLOBAL_DEFAULT);
    CURL *inherited = curl_easy_init();
    int ok = one(inherited), failed = !ok;
    for (int c = 0; c < children; c++) {
        pid_t pid = fork();
        if (pid == 0) {
            int bad = 0;
            CURL *h = curl_easy_init();
            for (int i = 0; i < requests; i++)
                bad += !one(h);
            curl_easy_cleanup(h);
            _exit(bad > 100 ? 100 : bad);
        }
    }
    for (int c = 0; c < children; c++) {
        int st = 0;
        wait(&st);
        int bad = WIFEXITED(st) ? WEXITSTATUS(st) : requests;
        failed += bad;
        ok += requests - bad;
    }
    if (one(inherited))
        ok++;
    else
        failed++;
    printf("ok=%d failed=%d\n", ok, failed);
    curl_easy_cleanup(inherited);
    curl_global_cleanup();
    return failed ? 1 : 0;
}
