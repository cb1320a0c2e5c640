#!/usr/bin/python3
"""A host that changes its socket's O_NONBLOCK between requests (tests/integration/test_sock_nonblock.sh).
Usage: nonblock_flip.py URL KEY (http; KEY its bearer key). One raw socket, one kept-alive connection;
before each request the socket is made blocking or non-blocking in another way, and each request's answer is
read as the socket now is. Prints one line a request, "HOW MODE STATUS FIRST SEND_MS", MODE the socket's
mode as set (block, nonblock), FIRST what the first recv after the request gave (data, EAGAIN:
BlockingIOError, error), SEND_MS how long the request's send took. The ways:
  ioctl      socket.setblocking (ioctl FIONBIO)
  fcntl      os.set_blocking on the socket's descriptor (fcntl F_GETFL, F_SETFL)
  dup        os.set_blocking on a duplicate of it (os.dup: the same file description), closed after
  created    none: a second connection's socket, made non-blocking (SOCK_NONBLOCK) before its connect; its
             next request blocking again with socket.setblocking
Then "fcntl-args ok" when fcntl's commands of every argument kind (none, an int, a pointer) and ioctl with a
pointer give what they must under the same process, else "fcntl-args FAILED WHAT"."""
import array, fcntl, json, os, select, socket, struct, sys, tempfile, termios, time, urllib.parse

u = urllib.parse.urlsplit(sys.argv[1])
BODY = json.dumps({"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}]}).encode()
REQ = ("POST %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\n"
       "Content-Length: %d\r\n\r\n" % (u.path, u.hostname, sys.argv[2], len(BODY))).encode() + BODY


def set_mode(s, how, block):
    if how == "created":
        return
    if how == "ioctl":
        s.setblocking(block)
    elif how == "fcntl":
        os.set_blocking(s.fileno(), block)
    else:
        d = os.dup(s.fileno())
        os.set_blocking(d, block)
        os.close(d)


def answer(s, buf):
    """The status of the whole answer (Content-Length) whose first bytes are buf, read to its end."""
    while b"\r\n\r\n" not in buf or len(buf) < buf.index(b"\r\n\r\n") + 4 + length(buf):
        try:
            more = s.recv(65536)
        except BlockingIOError:
            select.select([s], [], [], 10)
            continue
        if not more:
            raise EOFError("closed mid-answer")
        buf += more
    return int(buf.split(b" ", 2)[1])


def length(buf):
    for line in buf[:buf.index(b"\r\n\r\n")].split(b"\r\n")[1:]:
        k, _, v = line.partition(b":")
        if k.strip().lower() == b"content-length":
            return int(v)
    return 0


def request(s, how, block):
    set_mode(s, how, block)
    t0 = time.monotonic()
    s.sendall(REQ)
    send_ms = int((time.monotonic() - t0) * 1000)
    try:
        first, buf = "data", s.recv(65536)
    except BlockingIOError:
        first, buf = "EAGAIN", b""
    except OSError as e:
        print(how, "block" if block else "nonblock", "error", e, send_ms, flush=True)
        return
    print(how, "block" if block else "nonblock", answer(s, buf), first, send_ms, flush=True)


def fcntl_args():
    """None when fcntl and ioctl of each argument kind give what they must, else what went wrong."""
    r, w = os.pipe()
    os.write(w, b"12345")
    try:
        if fcntl.fcntl(r, fcntl.F_SETFD, fcntl.FD_CLOEXEC) != 0 or fcntl.fcntl(r, fcntl.F_GETFD) != fcntl.FD_CLOEXEC:
            return "F_SETFD/F_GETFD"  # an int, then none
        d = fcntl.fcntl(r, fcntl.F_DUPFD_CLOEXEC, 100)  # an int; a descriptor back
        if d < 100 or os.read(d, 2) != b"12" or fcntl.fcntl(d, fcntl.F_GETFD) != fcntl.FD_CLOEXEC:
            return "F_DUPFD_CLOEXEC"
        os.close(d)
        n = array.array("i", [0])
        if fcntl.ioctl(r, termios.FIONREAD, n, True) != 0 or n[0] != 3:  # a pointer written
            return "ioctl FIONREAD"
        if fcntl.fcntl(w, fcntl.F_SETPIPE_SZ, 1 << 16) < 1 << 16:
            return "F_SETPIPE_SZ"
        owner = struct.pack("ii", 1, os.getpid())  # struct f_owner_ex {F_OWNER_PID, pid}: a pointer read
        fcntl.fcntl(r, 15, owner)  # F_SETOWN_EX
        if struct.unpack("ii", fcntl.fcntl(r, 16, bytes(8))) != (1, os.getpid()):  # F_GETOWN_EX: written
            return "F_SETOWN_EX/F_GETOWN_EX"
        with tempfile.TemporaryFile() as f:
            f.write(b"x" * 100)
            f.flush()
            lock = struct.pack("hhqqi4x", fcntl.F_WRLCK, 0, 0, 10, 0)  # struct flock: a pointer read
            fcntl.fcntl(f, fcntl.F_SETLK, lock)
            got = struct.unpack("hhqqi4x", fcntl.fcntl(f, 36, lock))  # F_OFD_GETLK: that lock, written back
            if got[0] != fcntl.F_WRLCK or got[3] != 10 or got[4] != os.getpid():
                return "F_SETLK/F_OFD_GETLK %r" % (got,)
    except OSError as e:
        return "errno %s" % e
    finally:
        os.close(r)
        os.close(w)
    return None


s = socket.create_connection((u.hostname, u.port or 80))
s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
for how in ("ioctl", "fcntl", "dup"):
    request(s, how, True)
    request(s, how, False)
    request(s, how, True)
s.close()
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM | socket.SOCK_NONBLOCK)
s.connect_ex(socket.getaddrinfo(u.hostname, u.port or 80, socket.AF_INET, socket.SOCK_STREAM)[0][4])
select.select([], [s], [], 10)
request(s, "created", False)
request(s, "ioctl", True)
s.close()
bad = fcntl_args()
print("fcntl-args", "FAILED " + bad if bad else "ok", flush=True)
