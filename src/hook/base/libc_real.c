/* Resolution of the real socket functions (see libc_real.h). */
#include <errno.h>
#include <pthread.h>

#include "hook/base/real_sym.h"
#include "hook/base/libc_real.h"

lg_sock_real lg_sock_real_table;
int lg_sock_real_ready;
static lg_sock_real *const real = &lg_sock_real_table;
static pthread_once_t real_once = PTHREAD_ONCE_INIT;

static void *resolve(const char *name)
{
    static const char *const libs[] = {"libc.so.6"};
    return lg_real_sym(name, NULL, libs, 1);
}

static void resolve_all(void)
{
    int saved = errno;
    *(void **)&real->connect = resolve("connect");
    *(void **)&real->getaddrinfo = resolve("getaddrinfo");
    *(void **)&real->close = resolve("close");
    *(void **)&real->send = resolve("send");
    *(void **)&real->sendto = resolve("sendto");
    *(void **)&real->sendmsg = resolve("sendmsg");
    *(void **)&real->write = resolve("write");
    *(void **)&real->writev = resolve("writev");
    *(void **)&real->recv = resolve("recv");
    *(void **)&real->recvfrom = resolve("recvfrom");
    *(void **)&real->recvmsg = resolve("recvmsg");
    *(void **)&real->read = resolve("read");
    *(void **)&real->readv = resolve("readv");
    *(void **)&real->sendfile = resolve("sendfile");
    *(void **)&real->poll = resolve("poll");
    *(void **)&real->ppoll = resolve("ppoll");
    *(void **)&real->select = resolve("select");
    *(void **)&real->epoll_ctl = resolve("epoll_ctl");
    *(void **)&real->epoll_wait = resolve("epoll_wait");
    *(void **)&real->epoll_pwait = resolve("epoll_pwait");
    *(void **)&real->epoll_pwait2 = resolve("epoll_pwait2");
    __atomic_store_n(&lg_sock_real_ready, 1, __ATOMIC_RELEASE);
    errno = saved;
}

const lg_sock_real *lg_sock_real_resolve(void)
{
    pthread_once(&real_once, resolve_all);
    return real;
}
