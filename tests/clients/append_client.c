/* A libcurl host that appends to the header list it set, between two performs of one handle, without
 * setting the list again (legal: libcurl reads the list as it is at each transfer).
 * Usage: append_client URL CONNECT_TO; prints the response code of each perform. */
#include <curl/curl.h>
#include <stdio.h>

static size_t sink(char *p, size_t size, size_t n, void *data)
{
    (void)p;
    (void)data;
    return size * n;
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    CURL *h = curl_easy_init();
    struct curl_slist *headers = curl_slist_append(NULL, "Content-Type: application/json");
    struct curl_slist *connect_to = curl_slist_append(NULL, argv[2]);
    if (!h || !headers || !connect_to)
        return 1;
    curl_easy_setopt(h, CURLOPT_URL, argv[1]);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(h, CURLOPT_CONNECT_TO, connect_to);
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, "{\"model\":\"gpt-4o-mini\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, sink);
    int rc = 0;
    for (int i = 0; i < 3; i++) {
        if (i == 1 && !curl_slist_append(headers, "X-Appended: yes")) /* the list's head stays the same */
            return 1;
        long code = 0;
        if (curl_easy_perform(h) != CURLE_OK || curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code) != CURLE_OK)
            rc = 1;
        printf("%ld\n", code);
    }
    curl_easy_cleanup(h);
    curl_slist_free_all(headers);
    curl_slist_free_all(connect_to);
    return rc;
}
