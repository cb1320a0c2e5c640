/* Time zones from the TZ database's compiled files (see tz.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llmgate/small_file.h"
#include "llmgate/tz.h"

#define DAY_S INT64_C(86400)
#define TZ_FILE_MAX (256 * 1024)

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int64_t be64(const unsigned char *p) { return (int64_t)((uint64_t)be32(p) << 32 | be32(p + 4)); }

/* The six counts of the header at p (44 bytes): isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt. */
typedef struct {
    size_t isut, isstd, leap, time, type, chars;
} counts;

static bool header(const unsigned char *p, size_t len, counts *c)
{
    if (len < 44 || memcmp(p, "TZif", 4))
        return false;
    *c = (counts){be32(p + 20), be32(p + 24), be32(p + 28), be32(p + 32), be32(p + 36), be32(p + 40)};
    return c->type >= 1 && c->type <= 256 && c->time <= 100000 && c->leap <= 100000 && c->chars <= 100000;
}

/* The size of the data block after a header with counts c and times of w bytes. */
static size_t block(const counts *c, size_t w)
{
    return c->time * w + c->time + c->type * 6 + c->chars + c->leap * (w + 4) + c->isstd + c->isut;
}

lg_tz *lg_tz_parse(const unsigned char *data, size_t len)
{
    counts c;
    if (!header(data, len, &c) || 44 + block(&c, 4) > len)
        return NULL;
    size_t w = 4;
    if (data[4] >= '2') { /* the 64-bit part follows the 32-bit one */
        size_t skip = 44 + block(&c, 4);
        if (!header(data + skip, len - skip, &c) || skip + 44 + block(&c, 8) > len)
            return NULL;
        data += skip;
        w = 8;
    }
    const unsigned char *times = data + 44, *idx = times + c.time * w, *types = idx + c.time;
    lg_tz *tz = calloc(1, sizeof *tz);
    if (!tz || (c.time && (!(tz->at = malloc(c.time * sizeof *tz->at)) || !(tz->off = malloc(c.time * sizeof *tz->off))))) {
        lg_tz_free(tz);
        return NULL;
    }
    tz->off0 = (int32_t)be32(types); /* the first type: local mean time before the first transition */
    for (size_t i = 0; i < c.time; i++) {
        if (idx[i] >= c.type || (i && (w == 8 ? be64(times + 8 * i) : (int32_t)be32(times + 4 * i)) <= tz->at[i - 1])) {
            lg_tz_free(tz);
            return NULL;
        }
        tz->at[i] = w == 8 ? be64(times + 8 * i) : (int32_t)be32(times + 4 * i);
        tz->off[i] = (int32_t)be32(types + 6 * idx[i]);
        if (tz->off[i] < -26 * 3600 || tz->off[i] > 26 * 3600) {
            lg_tz_free(tz);
            return NULL;
        }
    }
    tz->n = c.time;
    return tz;
}

/* True when name may be looked up under the database's folder. */
static bool valid_name(const char *name)
{
    if (!name[0] || name[0] == '/' || strstr(name, "..") || strlen(name) > 200)
        return false;
    for (const char *p = name; *p; p++)
        if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || strchr("/_+-", *p)))
            return false;
    return true;
}

lg_tz *lg_tz_load(const char *name, char *why, size_t whylen)
{
    if (!valid_name(name)) {
        snprintf(why, whylen, "\"%s\" is not a time zone name (e.g. \"Europe/Berlin\")", name);
        return NULL;
    }
    const char *dir = getenv("TZDIR");
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir && dir[0] == '/' ? dir : "/usr/share/zoneinfo", name);
    lg_small_file f;
    if (!lg_small_file_read(path, 0, TZ_FILE_MAX, 0, &f)) {
        char buf[128];
        snprintf(why, whylen, "unknown time zone \"%s\" (%s: %s)", name, path, lg_small_file_problem(&f, buf, sizeof buf));
        return NULL;
    }
    lg_tz *tz = lg_tz_parse((const unsigned char *)f.data, f.len);
    lg_small_file_free(&f);
    if (!tz)
        snprintf(why, whylen, "%s is not a valid TZif file", path);
    return tz;
}

void lg_tz_free(lg_tz *tz)
{
    if (!tz)
        return;
    free(tz->at);
    free(tz->off);
    free(tz);
}

int32_t lg_tz_offset(const lg_tz *tz, int64_t utc_s)
{
    if (!tz)
        return 0;
    if (!tz->n || utc_s < tz->at[0])
        return tz->off0;
    size_t lo = 0, hi = tz->n; /* the last transition at or before utc_s: in [lo, hi) */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (tz->at[mid] <= utc_s)
            lo = mid;
        else
            hi = mid;
    }
    return tz->off[lo];
}

/* Floor division of a by b > 0. */
static int64_t floor_div(int64_t a, int64_t b) { return a / b - (a % b < 0); }

int64_t lg_tz_day(const lg_tz *tz, int64_t ms)
{
    int64_t s = floor_div(ms, 1000);
    return floor_div(s + lg_tz_offset(tz, s), DAY_S);
}

int64_t lg_tz_day_start(const lg_tz *tz, int64_t day)
{
    int64_t local = day * DAY_S;
    /* the offset in force at local midnight: guessed from the one a day's length around it, then checked */
    int64_t s = local - lg_tz_offset(tz, local);
    s = local - lg_tz_offset(tz, s);
    if (lg_tz_day(tz, s * 1000) != day) /* midnight skipped by a transition: the day starts at its end */
        s = local - lg_tz_offset(tz, s + DAY_S / 2);
    return s * 1000;
}
