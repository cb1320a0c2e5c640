/* A libcurl host that changes its API key between performs of one handle: first by rewriting the key in
 * the string of its header list in place (same list, same node, same string), then by setting a new list
 * with another key. Usage: key_change_client URL CONNECT_TO; prints the response code of each perform. */
#include <curl/curl.h>
#include <stdio.h>
#include <string.h>

static size_t sink(char *p, size_t size, size_t n, void *data)
{
    (void)p;
    (void)data;
    return size * n;
}

/* Performs h and prints the response code; 1 when the transfer failed. */
static int perform(CURL *h)
{
    long code = 0;
    int rc = curl_easy_perform(h) != CURLE_OK || curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code) != CURLE_OK;
    printf("%ld\n", code);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    CURL *h = curl_easy_init();
    struct curl_slist *headers = curl_slist_append(NULL, "Content-Type: application/json");
    struct curl_slist *auth = curl_slist_append(headers, "Authorization: Bearer sk-reuse-limited");
    struct curl_slist *other = curl_slist_append(NULL, "Authorization: Bearer sk-change-newlist");
    struct curl_slist *connect_to = curl_slist_append(NULL, argv[2]);
    if (!h || !headers || !auth || !other || !connect_to)
        return 1;
    curl_easy_setopt(h, CURLOPT_URL, argv[1]);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(h, CURLOPT_CONNECT_TO, connect_to);
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, "{\"model\":\"gpt-4o-mini\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, sink);
    int rc = perform(h);
    rc |= perform(h);
    char *line = auth->next->data;                     /* the list's second line, the key's */
    memcpy(line + strlen("Authorization: Bearer "), "sk-reuse-inplace", strlen("sk-reuse-inplace") + 1);
    rc |= perform(h);
    /* another auth header whose line holds the first key just where the old one's began: its key is the
     * first word after the name */
    memcpy(line, "x-api-key: sk-reuse-t sk-reuse-limited", strlen("x-api-key: sk-reuse-t sk-reuse-limited") + 1);
    rc |= perform(h);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, other);
    rc |= perform(h);
    curl_easy_cleanup(h);
    curl_slist_free_all(headers);
    curl_slist_free_all(other);
    curl_slist_free_all(connect_to);
    return rc;
}
