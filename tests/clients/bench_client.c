/* Benchmark host program: N sequential requests on one reused libcurl handle; prints the elapsed time.
 * usage: bench_client -n N [-c CONNECT_TO] [-k CA_FILE] [-H HEADER]... [-d BODY] URL (-k: https trusts CA_FILE)
 * Prints "requests=N failures=F elapsed_us=T cpu_us=C" (C: this process's user+system CPU time).
 * Exit 1 when any request failed. */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static size_t sink(char *p, size_t size, size_t n, void *ud)
{
    (void)p;
    *(size_t *)ud += size * n;
    return size * n;
}

int main(int argc, char **argv)
{
    int n = 1000;
    const char *url = NULL, *body = NULL, *ca = NULL;
    struct curl_slist *headers = NULL, *connect_to = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-n") && i + 1 < argc) n = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-c") && i + 1 < argc) connect_to = curl_slist_append(connect_to, argv[++i]);
        else if (!strcmp(argv[i], "-H") && i + 1 < argc) headers = curl_slist_append(headers, argv[++i]);
        else if (!strcmp(argv[i], "-d") && i + 1 < argc) body = argv[++i];
        else if (!strcmp(argv[i], "-k") && i + 1 < argc) ca = argv[++i];
        else url = argv[i];
    }
    if (!url) {
        fputs("usage: bench_client -n N [-c CONNECT_TO] [-k CA_FILE] [-H HEADER]... [-d BODY] URL\n", stderr);
        return 2;
    }
    curl_global_init(CURL_GLOBAL_DEFAULT);
    CURL *h = curl_easy_init();
    size_t bytes = 0;
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(h, CURLOPT_CONNECT_TO, connect_to);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, sink);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &bytes);
    if (body)
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
    if (ca)
        curl_easy_setopt(h, CURLOPT_CAINFO, ca);
    int failures = 0;
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (int i = 0; i < n; i++) {
        long code = 0;
        if (curl_easy_perform(h) != CURLE_OK || curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code) != CURLE_OK ||
            code != 200)
            failures++;
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    long long us = (long long)(b.tv_sec - a.tv_sec) * 1000000 + (b.tv_nsec - a.tv_nsec) / 1000;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    long long cpu = (long long)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000 + ru.ru_utime.tv_usec +
                    ru.ru_stime.tv_usec;
    printf("requests=%d failures=%d elapsed_us=%lld cpu_us=%lld bytes=%zu\n", n, failures, us, cpu, bytes);
    curl_easy_cleanup(h);
    curl_slist_free_all(headers);
    curl_slist_free_all(connect_to);
    curl_global_cleanup();
    return failures ? 1 : 0;
}
