/* The program's changes of a descriptor's settings the socket path notes, seen. O_NONBLOCK: fcntl and fcntl64 (F_SETFL) and ioctl (FIONBIO)
 * are interposed, and each one that succeeds on any descriptor is counted, so flags noted at another count
 * may be stale (a duplicate of a followed descriptor shares its file description, hence its O_NONBLOCK). A
 * descriptor the program creates non-blocking (socket, accept4 with SOCK_NONBLOCK) needs no count: the
 * socket path notes a descriptor's flags when it starts following it (conns.c). */
#ifndef LLMGATE_HOOK_SOCK_FD_FLAGS_H
#define LLMGATE_HOOK_SOCK_FD_FLAGS_H

/* How many times the program changed a descriptor's file status flags (acquire: flags read after it are at
 * least that fresh). */
unsigned lg_fd_flags_changes(void);

/* How many times the program set SO_RCVTIMEO or SO_SNDTIMEO on any descriptor (setsockopt, interposed; a
 * duplicate descriptor shares its socket, hence its options): timeouts noted at another count may be stale. */
unsigned lg_fd_timeouts_changes(void);

#endif
