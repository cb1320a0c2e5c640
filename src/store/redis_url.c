/* store.redis_url parsing (see redis_url.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/redis_url.h"

/* Copies [s, s+len) into dst (cap bytes); false when it does not fit. */
static bool copy_part(char *dst, size_t cap, const char *s, size_t len)
{
    if (len >= cap)
        return false;
    memcpy(dst, s, len);
    dst[len] = '\0';
    return true;
}

/* A decimal number in [min, max] filling all of [s, s+len). */
static bool number(const char *s, size_t len, long min, long max, int *out)
{
    char buf[16];
    char *end;
    if (len == 0 || !copy_part(buf, sizeof buf, s, len))
        return false;
    long v = strtol(buf, &end, 10);
    if (*end || v < min || v > max)
        return false;
    *out = (int)v;
    return true;
}

/* Splits "[[user]:pass@]rest" off the front of s; returns rest. */
static const char *userinfo(const char *s, lg_redis_url *u, bool *ok)
{
    const char *at = strrchr(s, '@');
    if (!at)
        return s;
    const char *colon = memchr(s, ':', (size_t)(at - s));
    if (!colon)
        *ok = copy_part(u->user, sizeof u->user, s, (size_t)(at - s)) && *ok;
    else
        *ok = copy_part(u->user, sizeof u->user, s, (size_t)(colon - s)) &&
              copy_part(u->pass, sizeof u->pass, colon + 1, (size_t)(at - colon - 1)) && *ok;
    if (!colon) { /* "redis://secret@host": a password alone, as redis-cli reads it */
        memcpy(u->pass, u->user, sizeof u->pass < sizeof u->user ? sizeof u->pass : sizeof u->user);
        u->user[0] = '\0';
    }
    return at + 1;
}

bool lg_redis_url_parse(const char *url, lg_redis_url *u, char *err, size_t errlen)
{
    memset(u, 0, sizeof *u);
    u->port = 6379;
    bool ok = true;
    if (!strncmp(url, "unix://", 7)) {
        const char *p = userinfo(url + 7, u, &ok);
        const char *q = strchr(p, '?');
        size_t len = q ? (size_t)(q - p) : strlen(p);
        ok = ok && p[0] == '/' && copy_part(u->socket, sizeof u->socket, p, len);
        if (ok && q)
            ok = !strncmp(q, "?db=", 4) && number(q + 4, strlen(q + 4), 0, 1 << 20, &u->db);
    } else if (!strncmp(url, "redis://", 8)) {
        const char *p = userinfo(url + 8, u, &ok);
        const char *slash = strchr(p, '/');
        size_t hostport = slash ? (size_t)(slash - p) : strlen(p);
        const char *colon = memchr(p, ':', hostport);
        size_t hostlen = colon ? (size_t)(colon - p) : hostport;
        ok = ok && hostlen > 0 && copy_part(u->host, sizeof u->host, p, hostlen);
        if (ok && colon)
            ok = number(colon + 1, hostport - hostlen - 1, 1, 65535, &u->port);
        if (ok && slash && slash[1])
            ok = number(slash + 1, strlen(slash + 1), 0, 1 << 20, &u->db);
    } else
        ok = false;
    if (!ok)
        snprintf(err, errlen, "store.redis_url: expected redis://[[user]:password@]host[:port][/db] or "
                              "unix://[[user]:password@]/path[?db=N]");
    return ok;
}

void lg_redis_url_where(const lg_redis_url *u, char *out, size_t outlen)
{
    if (u->socket[0])
        snprintf(out, outlen, "%s", u->socket);
    else
        snprintf(out, outlen, "%s:%d", u->host, u->port);
}
