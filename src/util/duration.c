/* Parsers for wait hints and timestamps: Go and protobuf durations, delta-seconds, HTTP-dates, RFC 3339.
 * Everything is computed in integer nanoseconds with overflow checks; fractions beyond nanosecond
 * precision still round the result up, so the millisecond result is an exact ceiling. */
#include <stdint.h>
#include <string.h>

#include "llmgate/duration.h"

#define NS_PER_MS 1000000LL

/* Bounded length: len, or up to the first NUL. */
static size_t blen(const char *s, size_t len)
{
    const char *z = s ? memchr(s, '\0', len) : NULL;
    return s ? (z ? (size_t)(z - s) : len) : 0;
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* Trims spaces around [*s, *s + *n). */
static void trim(const char **s, size_t *n)
{
    while (*n && is_space(**s))
        (*s)++, (*n)--;
    while (*n && is_space((*s)[*n - 1]))
        (*n)--;
}

/* Parses digits[.digits] at s[*i] scaled by unit_ns nanoseconds and adds it to *ns. Digits past the
 * nanosecond precision set *round_up when non-zero. Returns false on no digits or overflow. */
static bool add_scaled(const char *s, size_t n, size_t *i, int64_t unit_ns, int64_t *ns, bool *round_up)
{
    size_t start = *i;
    int64_t v = 0;
    while (*i < n && is_digit(s[*i])) {
        if (v > (INT64_MAX - 9) / 10)
            return false;
        v = v * 10 + (s[*i] - '0');
        (*i)++;
    }
    bool int_digits = *i > start;
    if (v > (INT64_MAX - *ns) / unit_ns)
        return false;
    *ns += v * unit_ns;
    if (*i < n && s[*i] == '.') {
        (*i)++;
        size_t fstart = *i;
        int64_t scale = unit_ns;
        while (*i < n && is_digit(s[*i])) {
            int d = s[*i] - '0';
            if (scale % 10 == 0) {
                scale /= 10;
                if (d * scale > INT64_MAX - *ns)
                    return false;
                *ns += d * scale;
            } else if (d) {
                *round_up = true; /* below the precision we keep: it only rounds up */
            }
            (*i)++;
        }
        if (*i == fstart && !int_digits)
            return false;
    } else if (!int_digits) {
        return false;
    }
    return true;
}

/* Nanoseconds (plus a round-up flag) to ceil milliseconds. */
static int64_t ceil_ms(int64_t ns, bool round_up)
{
    int64_t ms = ns / NS_PER_MS;
    if (ns % NS_PER_MS || round_up)
        ms++;
    return ms;
}

/* The Go duration unit at u (left bytes there): its length in *len and its size in ns, the longest name
 * matching (ms before m); 0 when none does. ns, us, \u00b5s and \u03bcs (both micro signs), ms, s, m, h. */
static int64_t go_unit(const char *u, size_t left, size_t *len)
{
    bool s1 = left >= 2 && u[1] == 's';
    *len = 1;
    switch (left ? u[0] : 0) {
    case 's': return 1000000000LL;
    case 'h': return 3600000000000LL;
    case 'm':
        *len = s1 ? 2 : 1;
        return s1 ? NS_PER_MS : 60000000000LL;
    case 'n':
    case 'u':
        *len = 2;
        return !s1 ? 0 : u[0] == 'n' ? 1 : 1000;
    case '\xc2': /* U+00B5 and U+03BC, then s */
    case '\xce':
        *len = 3;
        return left >= 3 && (unsigned char)u[1] == (u[0] == '\xc2' ? 0xb5 : 0xbc) && u[2] == 's' ? 1000 : 0;
    default: return 0;
    }
}

bool lg_parse_go_duration(const char *s, size_t len, int64_t *ms)
{
    size_t n = blen(s, len);
    trim(&s, &n);
    if (!n)
        return false;
    size_t i = 0;
    if (s[0] == '+')
        i++;
    if (n - i == 1 && s[i] == '0') {
        *ms = 0;
        return true;
    }
    int64_t ns = 0;
    bool round_up = false;
    if (i >= n)
        return false;
    while (i < n) {
        /* Find where the number ends to read the unit first. */
        size_t j = i;
        while (j < n && (is_digit(s[j]) || s[j] == '.'))
            j++;
        size_t best;
        int64_t unit = go_unit(s + j, n - j, &best);
        if (!unit)
            return false;
        size_t k = i;
        if (!add_scaled(s, j, &k, unit, &ns, &round_up) || k != j)
            return false;
        i = j + best;
    }
    *ms = ceil_ms(ns, round_up);
    return true;
}

bool lg_parse_proto_duration(const char *s, size_t len, int64_t *ms)
{
    size_t n = blen(s, len);
    trim(&s, &n);
    if (n < 2 || s[n - 1] != 's')
        return false;
    const char *dot = memchr(s, '.', n - 1);
    if (dot && (size_t)(s + n - 1 - dot - 1) > 9)
        return false;
    size_t i = 0;
    int64_t ns = 0;
    bool round_up = false;
    if (!add_scaled(s, n - 1, &i, 1000000000LL, &ns, &round_up) || i != n - 1)
        return false;
    *ms = ceil_ms(ns, round_up);
    return true;
}

bool lg_parse_delta_seconds(const char *s, size_t len, int64_t *ms)
{
    size_t n = blen(s, len);
    trim(&s, &n);
    size_t i = 0;
    int64_t ns = 0;
    bool round_up = false;
    if (!n || !add_scaled(s, n, &i, 1000000000LL, &ns, &round_up) || i != n)
        return false;
    *ms = ceil_ms(ns, round_up);
    return true;
}

/* Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static int days_in_month(int64_t y, int m)
{
    static const int dm[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return m == 2 && leap ? 29 : dm[m - 1];
}

/* Validates the fields and returns Unix ms of a UTC civil time. */
static bool civil_ms(int64_t y, int mo, int d, int h, int mi, int sec, int64_t *out)
{
    if (y < 0 || y > 9999 || mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo) || h < 0 || h > 23 ||
        mi < 0 || mi > 59 || sec < 0 || sec > 60)
        return false;
    *out = ((days_from_civil(y, mo, d) * 24 + h) * 60 + mi) * 60000LL + sec * 1000LL;
    return true;
}

/* Reads exactly `count` digits at s[*i]. */
static bool digits(const char *s, size_t n, size_t *i, int count, int *v)
{
    int r = 0;
    for (int k = 0; k < count; k++, (*i)++) {
        if (*i >= n || !is_digit(s[*i]))
            return false;
        r = r * 10 + (s[*i] - '0');
    }
    *v = r;
    return true;
}

/* Reads 1 or 2 digits at s[*i]. */
static bool digits12(const char *s, size_t n, size_t *i, int *v)
{
    if (*i >= n || !is_digit(s[*i]))
        return false;
    *v = s[(*i)++] - '0';
    if (*i < n && is_digit(s[*i]))
        *v = *v * 10 + (s[(*i)++] - '0');
    return true;
}

static bool lit(const char *s, size_t n, size_t *i, char c)
{
    if (*i < n && s[*i] == c) {
        (*i)++;
        return true;
    }
    return false;
}

static void skip_spaces(const char *s, size_t n, size_t *i)
{
    while (*i < n && s[*i] == ' ')
        (*i)++;
}

static int month_index(const char *s, size_t n, size_t *i)
{
    static const char *const months[] = {"jan", "feb", "mar", "apr", "may", "jun",
                                         "jul", "aug", "sep", "oct", "nov", "dec"};
    if (n - *i < 3)
        return 0;
    for (int m = 0; m < 12; m++) {
        bool eq = true;
        for (int k = 0; k < 3; k++)
            if ((s[*i + k] | 0x20) != months[m][k])
                eq = false;
        if (eq) {
            *i += 3;
            return m + 1;
        }
    }
    return 0;
}

/* HH:MM:SS at s[*i]. */
static bool clock_hms(const char *s, size_t n, size_t *i, int *h, int *mi, int *sec)
{
    return digits(s, n, i, 2, h) && lit(s, n, i, ':') && digits(s, n, i, 2, mi) && lit(s, n, i, ':') &&
           digits(s, n, i, 2, sec);
}

bool lg_parse_http_date(const char *s, size_t len, int64_t *unix_ms)
{
    size_t n = blen(s, len);
    trim(&s, &n);
    size_t i = 0;
    while (i < n && ((s[i] | 0x20) >= 'a' && (s[i] | 0x20) <= 'z'))
        i++; /* day name */
    if (!i)
        return false;
    int d, mo, h, mi, sec, y4;
    int64_t y;
    if (lit(s, n, &i, ',')) {
        skip_spaces(s, n, &i);
        if (!digits12(s, n, &i, &d))
            return false;
        if (lit(s, n, &i, '-')) { /* RFC 850: 06-Nov-94 */
            int yy;
            if (!(mo = month_index(s, n, &i)) || !lit(s, n, &i, '-') || !digits(s, n, &i, 2, &yy))
                return false;
            y = yy < 70 ? 2000 + yy : 1900 + yy;
        } else { /* IMF-fixdate: 06 Nov 1994 */
            skip_spaces(s, n, &i);
            if (!(mo = month_index(s, n, &i)))
                return false;
            skip_spaces(s, n, &i);
            if (!digits(s, n, &i, 4, &y4))
                return false;
            y = y4;
        }
        skip_spaces(s, n, &i);
        if (!clock_hms(s, n, &i, &h, &mi, &sec))
            return false;
        skip_spaces(s, n, &i);
        if (i < n && !(n - i == 3 && (!strncmp(s + i, "GMT", 3) || !strncmp(s + i, "UTC", 3))))
            return false;
    } else { /* asctime: Sun Nov  6 08:49:37 1994 */
        skip_spaces(s, n, &i);
        if (!(mo = month_index(s, n, &i)))
            return false;
        skip_spaces(s, n, &i);
        if (!digits12(s, n, &i, &d))
            return false;
        skip_spaces(s, n, &i);
        if (!clock_hms(s, n, &i, &h, &mi, &sec))
            return false;
        skip_spaces(s, n, &i);
        if (!digits(s, n, &i, 4, &y4) || i != n)
            return false;
        y = y4;
    }
    return civil_ms(y, mo, d, h, mi, sec, unix_ms);
}

bool lg_parse_rfc3339(const char *s, size_t len, int64_t *unix_ms)
{
    size_t n = blen(s, len);
    trim(&s, &n);
    size_t i = 0;
    int y, mo, d, h = 0, mi = 0, sec = 0;
    if (!digits(s, n, &i, 4, &y) || !lit(s, n, &i, '-') || !digits(s, n, &i, 2, &mo) || !lit(s, n, &i, '-') ||
        !digits(s, n, &i, 2, &d))
        return false;
    int64_t frac_ms = 0, offset_min = 0;
    if (i < n) {
        if (!(lit(s, n, &i, 'T') || lit(s, n, &i, 't') || lit(s, n, &i, ' ')))
            return false;
        if (!digits(s, n, &i, 2, &h) || !lit(s, n, &i, ':') || !digits(s, n, &i, 2, &mi))
            return false;
        if (lit(s, n, &i, ':') && !digits(s, n, &i, 2, &sec))
            return false;
        if (i < n && (s[i] == '.' || s[i] == ',')) {
            int64_t ns = 0;
            bool round_up = false;
            size_t k = i;
            char buf[40];
            size_t m = 0;
            buf[m++] = '0';
            while (k < n && m < sizeof buf - 1 && (k == i || is_digit(s[k])))
                buf[m++] = s[k] == ',' ? '.' : s[k], k++;
            while (k < n && is_digit(s[k]))
                k++; /* digits past our buffer only matter for rounding, and are below 1 ns */
            size_t p = 0;
            if (m < 3 || !add_scaled(buf, m, &p, 1000000000LL, &ns, &round_up))
                return false;
            frac_ms = ceil_ms(ns, round_up);
            i = k;
        }
        if (i < n && (s[i] == 'Z' || s[i] == 'z')) {
            i++;
        } else if (i < n && (s[i] == '+' || s[i] == '-')) {
            int sign = s[i++] == '-' ? -1 : 1, oh, om = 0;
            if (!digits(s, n, &i, 2, &oh))
                return false;
            if (lit(s, n, &i, ':') || (i < n && is_digit(s[i])))
                if (!digits(s, n, &i, 2, &om))
                    return false;
            if (oh > 23 || om > 59)
                return false;
            offset_min = sign * (oh * 60 + om);
        }
        if (i != n)
            return false;
    }
    int64_t base;
    if (!civil_ms(y, mo, d, h, mi, sec, &base))
        return false;
    *unix_ms = base + frac_ms - offset_min * 60000LL;
    return true;
}

int64_t lg_hint_clamp(int64_t ms, int64_t max_ms)
{
    if (ms < 0 || ms > LG_HINT_ABSURD_MS)
        return -1;
    return ms < max_ms ? ms : max_ms;
}
