/* Wait hints written in message prose: "Please try again in 644ms", "try again in 9m38.016s", "Please retry
 * after 45 seconds", "Please retry in 43.71576202s.", "please try again after 1 seconds", "Your quota will
 * reset after 12h34m16s.", and absolute times: "You will regain access on 2026-04-01 at 00:00 UTC.",
 * "Claude AI usage limit reached|1753387200". */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "classify/dialects.h"
#include "llmgate/duration.h"

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static int is_alpha(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Milliseconds per unit word, 0 when it is not a unit. An empty word means seconds. */
static int64_t unit_ms(const char *w, size_t n)
{
    static const struct {
        const char *name;
        int64_t ms;
    } units[] = {{"", 1000},         {"ms", 1},          {"msec", 1},           {"msecs", 1},
                 {"millisecond", 1}, {"milliseconds", 1}, {"s", 1000},           {"sec", 1000},
                 {"secs", 1000},     {"second", 1000},   {"seconds", 1000},     {"m", 60000},
                 {"min", 60000},     {"mins", 60000},    {"minute", 60000},     {"minutes", 60000},
                 {"h", 3600000},     {"hr", 3600000},    {"hrs", 3600000},      {"hour", 3600000},
                 {"hours", 3600000}, {"d", 86400000},    {"day", 86400000},     {"days", 86400000}};
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strlen(units[i].name) == n && !strncasecmp(units[i].name, w, n))
            return units[i].ms;
    return 0;
}

/* The run of digits at t[*i] (at most 9) as a number; false when there is none. */
static bool digits_at(const char *t, size_t n, size_t *i, int64_t *v)
{
    size_t b = *i;
    for (*v = 0; *i < n && is_digit(t[*i]) && *i - b < 9; (*i)++)
        *v = *v * 10 + (t[*i] - '0');
    return *i > b && !(*i < n && is_digit(t[*i]));
}

/* A .NET TimeSpan at t[i], "[d.]hh:mm:ss[.fff]" (Azure API Management: "Quota will be replenished in
 * 20.09:58:55."), in *ms. */
static bool timespan_at(const char *t, size_t n, size_t i, int64_t *ms)
{
    int64_t d = 0, h, m, s;
    if (!digits_at(t, n, &i, &h))
        return false;
    if (i < n && t[i] == '.') { /* days first */
        d = h;
        i++;
        if (!digits_at(t, n, &i, &h))
            return false;
    }
    if (i >= n || t[i++] != ':' || !digits_at(t, n, &i, &m) || i >= n || t[i++] != ':' || !digits_at(t, n, &i, &s) ||
        h > 23 || m > 59 || s > 59)
        return false;
    int64_t frac = 0, scale = 100;
    bool rest = false;
    if (i + 1 < n && t[i] == '.' && is_digit(t[i + 1])) /* a fraction of a second: ms, rounded up */
        for (size_t b = ++i; i < n && is_digit(t[i]); i++, scale /= 10) {
            if (i - b < 3)
                frac += (t[i] - '0') * scale;
            else
                rest = rest || t[i] != '0';
        }
    *ms = ((d * 24 + h) * 60 + m) * 60000 + s * 1000 + frac + rest;
    return true;
}

/* Parses a wait at t[i]: a Go-style duration token, a TimeSpan, or a number followed by a unit word. */
static bool wait_at(const char *t, size_t n, size_t i, int64_t *ms)
{
    while (i < n && (t[i] == ' ' || t[i] == '~')) /* "resets in ~7s" */
        i++;
    if (i >= n || !is_digit(t[i]))
        return false;
    if (timespan_at(t, n, i, ms))
        return true;
    size_t j = i;
    while (j < n && (is_digit(t[j]) || t[j] == '.' || is_alpha(t[j]) || (unsigned char)t[j] >= 0x80))
        j++;
    size_t end = j;
    while (end > i && t[end - 1] == '.')
        end--;
    if (lg_parse_go_duration(t + i, end - i, ms))
        return true;
    size_t k = i;
    while (k < end && (is_digit(t[k]) || t[k] == '.'))
        k++;
    size_t num_end = k;
    while (num_end > i && t[num_end - 1] == '.')
        num_end--;
    const char *w = t + k;
    size_t wl = end - k;
    if (!wl) { /* "45 seconds": the unit is the next word */
        size_t p = j;
        while (p < n && t[p] == ' ')
            p++;
        w = t + p;
        for (wl = 0; p + wl < n && is_alpha(t[p + wl]);)
            wl++;
    }
    int64_t per = unit_ms(w, wl), sec_ms;
    if (!per || !lg_parse_delta_seconds(t + i, num_end - i, &sec_ms))
        return false;
    if (per == 1) {
        *ms = sec_ms / 1000 + (sec_ms % 1000 != 0);
        return true;
    }
    if (sec_ms > INT64_MAX / (per / 1000))
        return false;
    *ms = sec_ms * (per / 1000);
    return true;
}

/* The first wait after any of keys[]. */
static bool wait_after(const char *t, size_t n, const char *const *keys, size_t count, int64_t *ms)
{
    for (size_t k = 0; k < count; k++) {
        size_t kl = strlen(keys[k]);
        size_t from = 0;
        long at;
        while (from < n && (at = lg_text_find(t + from, n - from, keys[k])) >= 0) {
            size_t pos = from + (size_t)at + kl;
            if (wait_at(t, n, pos, ms))
                return true;
            from += (size_t)at + 1;
        }
    }
    return false;
}

static const char *const reset_keys[] = {"resets in", "reset in", "resets after", "reset after", "replenished in",
                                         "replenished after"};

bool lg_prose_wait(const char *t, size_t n, int64_t *ms)
{
    static const char *const keys[] = {"try again in", "try again after", "retry in",   "retry after",
                                       "retrying in",  "retry again in",  "again in",   "wait"};
    return wait_after(t, n, keys, 6, ms) || wait_after(t, n, reset_keys, sizeof reset_keys / sizeof reset_keys[0], ms) ||
           wait_after(t, n, keys + 6, 2, ms);
}

bool lg_prose_reset_wait(const char *t, size_t n, int64_t *ms)
{
    return wait_after(t, n, reset_keys, sizeof reset_keys / sizeof reset_keys[0], ms);
}

/* True when the word just before t[i] is one that introduces a resume time. */
static bool time_keyword_before(const char *t, size_t i)
{
    static const char *const words[] = {"on", "until", "after", "at", "by", "from", "till"};
    return lg_text_word_before(t, i, words, sizeof words / sizeof words[0]);
}

/* Parses "YYYY-MM-DD[ at ]HH:MM[:SS][ UTC|Z|+hh:mm|+hhmm]" or RFC 3339 at t[i]. */
static bool time_at(const char *t, size_t n, size_t i, int64_t *at_ms)
{
    size_t j = i;
    while (j < n && t[j] && (is_digit(t[j]) || strchr("-:.TtZz+", t[j])))
        j++;
    while (j > i && (t[j - 1] == '.' || t[j - 1] == ':'))
        j--;
    if (j - i > 10 && lg_parse_rfc3339(t + i, j - i, at_ms))
        return true;
    char buf[48];
    size_t p = i + 10;
    while (p < n && t[p] == ' ')
        p++;
    if (n - p >= 3 && !strncasecmp(t + p, "at ", 3))
        p += 3;
    while (p < n && t[p] == ' ')
        p++;
    int h = 0, mi = 0, sec = 0, used = 0;
    char clock[9] = "";
    size_t c = 0;
    while (p + c < n && c < 8 && (is_digit(t[p + c]) || t[p + c] == ':'))
        c++;
    memcpy(clock, t + p, c);
    clock[c] = '\0';
    bool has_clock = sscanf(clock, "%2d:%2d%n", &h, &mi, &used) == 2 && used >= 4;
    if (has_clock) {
        if (clock[used] == ':' && sscanf(clock + used + 1, "%2d", &sec) != 1)
            sec = 0;
        p += c;
    } else {
        h = mi = sec = 0;
    }
    while (p < n && t[p] == ' ')
        p++;
    char zone[8] = "Z";
    if (p < n && (t[p] == '+' || t[p] == '-') && n - p >= 6 && is_digit(t[p + 1]) && t[p + 3] == ':') {
        memcpy(zone, t + p, 6);
        zone[6] = '\0';
    } else if (p < n && (t[p] == '+' || t[p] == '-') && n - p >= 5 && is_digit(t[p + 1]) && is_digit(t[p + 2]) &&
               is_digit(t[p + 3]) && is_digit(t[p + 4]) && !(n - p > 5 && is_digit(t[p + 5]))) {
        /* "+0800" (Ark: "It will reset at 2026-08-29 23:59:59 +0800 CST."); the offset, not the zone's name
         * after it, tells the instant: a name alone is ambiguous (CST is UTC+8 in China, UTC-6 in the US) */
        snprintf(zone, sizeof zone, "%c%c%c:%c%c", t[p], t[p + 1], t[p + 2], t[p + 3], t[p + 4]);
    } else if (has_clock && !(n - p >= 3 && (!strncasecmp(t + p, "UTC", 3) || !strncasecmp(t + p, "GMT", 3))) &&
               !(p < n && (t[p] == 'Z' || t[p] == 'z'))) {
        return false; /* a clock time in an unnamed zone (the provider's local time?) names no instant */
    }
    snprintf(buf, sizeof buf, "%.10sT%02d:%02d:%02d%s", t + i, h, mi, sec, zone);
    return lg_parse_rfc3339(buf, strlen(buf), at_ms);
}

/* Claude subscription messages end with the reset as Unix seconds: "usage limit reached|1753387200". */
static bool epoch_after_bar(const char *t, size_t n, int64_t *at_ms)
{
    long at = lg_text_find(t, n, "reached|");
    if (at < 0)
        return false;
    size_t i = (size_t)at + 8, j = i;
    int64_t v = 0;
    while (j < n && is_digit(t[j]) && j - i < 12)
        v = v * 10 + (t[j++] - '0');
    if (j - i < 9 || j - i > 11 || (j < n && is_digit(t[j])))
        return false;
    *at_ms = v * 1000;
    return true;
}

bool lg_prose_time(const char *t, size_t n, int64_t *at_ms)
{
    if (epoch_after_bar(t, n, at_ms))
        return true;
    for (size_t i = 0; i + 10 <= n; i++) {
        if ((i > 0 && (is_digit(t[i - 1]) || is_alpha(t[i - 1]))) || !is_digit(t[i]))
            continue;
        bool date = is_digit(t[i + 1]) && is_digit(t[i + 2]) && is_digit(t[i + 3]) && t[i + 4] == '-' &&
                    is_digit(t[i + 5]) && is_digit(t[i + 6]) && t[i + 7] == '-' && is_digit(t[i + 8]) &&
                    is_digit(t[i + 9]);
        if (date && time_keyword_before(t, i) && time_at(t, n, i, at_ms))
            return true;
    }
    return false;
}
