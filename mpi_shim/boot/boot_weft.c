/* Bootstrap through Weft's own mpirun, rank side: how a rank it started
 * learns its rank, the job size and the job secret, and trades data with
 * the other ranks before the transports are up (interface in boot.h, the
 * implementations' contract in boot_impl.h, wire format in boot_proto.h,
 * the other side in launcher/wireup.c).
 *
 * Design. mpirun puts everything a rank needs in the environment and runs a
 * small TCP control server. wmpi_boot_init connects to it, presents the
 * job secret in HELLO and keeps the connection; all-gathers (the ranks'
 * business cards), barriers and the finalize notice are request/reply
 * exchanges on it. Waits for the launcher go through the I/O server
 * (weft_fd_wait) once the runtime is up, so a rank waiting in an
 * all-gather for the slowest of many ranks parks its thread and its
 * worker sleeps, taking no preemption ticks; a kernel thread blocked in
 * recv() would take one every millisecond, which with tens of ranks per
 * CPU costs the start-up most of its time. Before the runtime is up (and
 * after it is gone), and always for an abort (which may come from inside
 * the runtime or under the engine's locks), they are plain poll() calls.
 *
 * Abort may come from any thread while another one sits in an all-gather on
 * the control connection, so it never touches that connection: it opens a
 * second, short one (HELLO of kind ABORT, then ABORT), waits a bounded time
 * for the launcher's acknowledgement so that mpirun learns the reason before
 * it sees the process exit, then _exit()s. The control server's address is
 * resolved once, in init, and kept in the struct, so abort does no name
 * lookup.
 *
 * Rejected: a lock around the control fd shared by abort (an abort would
 * wait behind an all-gather that never completes, which is exactly when
 * one aborts); a pthread watching the connection (the launcher kills ranks
 * with signals instead; a local rank also dies with mpirun through
 * PR_SET_PDEATHSIG, set by the launcher).
 *
 * Invariants: control_fd >= 0 exactly between a successful init and
 * finalize of a launched rank; ctl_addrlen != 0 iff a launcher was reached.
 * Writes use MSG_NOSIGNAL, so a launcher that went away gives an error
 * code, not SIGPIPE. Every wait on the launcher for a reply to HELLO or
 * ABORT is bounded; an all-gather waits as long as the slowest rank.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <weft/errno.h>
#include <weft/io.h>
#include <weft/thread.h>
#include <weft/timer.h>

#include "boot.h"
#include "boot_impl.h"
#include "boot_proto.h"

#define CONNECT_TIMEOUT_MS 5000 /* per control address */
#define REPLY_TIMEOUT_MS   30000 /* WELCOME, FINALIZED */
#define ABORT_TIMEOUT_MS   5000  /* ABORTED */

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Through the I/O server: only this thread waits (see the head). */
static int wait_fd_weft(int fd, short events, int64_t deadline)
{
    unsigned ev = (events & POLLIN ? WEFT_IO_READ : 0) | (events & POLLOUT ? WEFT_IO_WRITE : 0);

    for (;;) {
        int r = weft_fd_wait(fd, ev, deadline >= 0 ? deadline * 1000000 : WEFT_FOREVER);
        if (r > 0)
            return 0;
        if (r != -EINTR)
            return r;
    }
}

/* Wait until fd shows `events`, or the deadline (ms, -1: none) passes;
 * park: through the I/O server if the runtime is up (never for an abort,
 * which may come from inside the runtime or the engine's locks). */
static int wait_fd(int fd, short events, int64_t deadline, int park)
{
    if (park && weft_is_initialized())
        return wait_fd_weft(fd, events, deadline);
    for (;;) {
        int t = -1;
        if (deadline >= 0) {
            int64_t left = deadline - now_ms();
            if (left <= 0)
                return -ETIMEDOUT;
            t = left > INT_MAX ? INT_MAX : (int)left;
        }
        struct pollfd p = { .fd = fd, .events = events };
        int r = poll(&p, 1, t);
        if (r > 0)
            return 0;
        if (r < 0 && errno != EINTR)
            return -errno;
    }
}

/* ------------------------------------------------------------ messages */

static int send_all(int fd, struct iovec *v, int n)
{
    while (n > 0) {
        struct msghdr m = { .msg_iov = v, .msg_iovlen = (size_t)n };
        ssize_t w = sendmsg(fd, &m, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return -errno;
        for (; n > 0 && (size_t)w >= v->iov_len; v++, n--)
            w -= (ssize_t)v->iov_len;
        if (n > 0) {
            v->iov_base = (char *)v->iov_base + w;
            v->iov_len -= (size_t)w;
        }
    }
    return 0;
}

static int send_msg(int fd, uint32_t type, const void *body, size_t len)
{
    uint8_t hdr[WMPI_MSG_HDR_LEN];
    wmpi_put32(hdr, type);
    wmpi_put32(hdr + 4, (uint32_t)len);
    struct iovec v[2] = { { hdr, sizeof hdr }, { (void *)body, len } };
    return send_all(fd, v, 2);
}

static int recv_all(int fd, void *buf, size_t n, int64_t deadline, int park)
{
    for (size_t got = 0; got < n;) {
        int err = wait_fd(fd, POLLIN, deadline, park);
        if (err)
            return err;
        ssize_t r = recv(fd, (char *)buf + got, n - got, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -errno;
        if (r == 0)
            return -ECONNRESET;
        got += (size_t)r;
    }
    return 0;
}

/* Receive one message that must be of `type` with a `len`-byte body. */
static int recv_msg(int fd, uint32_t type, void *body, size_t len, int64_t deadline,
                    int park)
{
    uint8_t hdr[WMPI_MSG_HDR_LEN];
    int err = recv_all(fd, hdr, sizeof hdr, deadline, park);
    if (err)
        return err;
    if (wmpi_get32(hdr) != type || wmpi_get32(hdr + 4) != len)
        return -EPROTO;
    return recv_all(fd, body, len, deadline, park);
}

static int send_hello(int fd, const wmpi_boot *b, uint32_t kind)
{
    uint8_t m[WMPI_HELLO_LEN];
    wmpi_put32(m, WMPI_PROTO_MAGIC);
    wmpi_put32(m + 4, WMPI_PROTO_VERSION);
    wmpi_put32(m + 8, kind);
    wmpi_put32(m + 12, (uint32_t)b->rank);
    wmpi_put32(m + 16, (uint32_t)getpid());
    memcpy(m + 20, b->secret, WMPI_SECRET_LEN);
    return send_msg(fd, WMPI_MSG_HELLO, m, sizeof m);
}

/* ------------------------------------------------------------ connecting */

/* Whether the process at the other end of Unix socket fd is of our user:
 * the HELLO that follows carries the job's secret, and an abstract name
 * that mpirun no longer holds (or never held, in another network
 * namespace) may be anyone's. */
static int same_user(int fd)
{
    struct ucred cred;
    socklen_t len = sizeof cred;
    return getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 && len == sizeof cred &&
           cred.uid == geteuid();
}

/* A blocking stream connection to sa, or -errno (-EACCES: a Unix socket of
 * another user); the connect is bounded. */
static int connect_addr(const struct sockaddr *sa, socklen_t len)
{
    int fd = socket(sa->sa_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return -errno;
    int err = 0;
    if (connect(fd, sa, len) < 0) {
        err = errno == EINPROGRESS ? wait_fd(fd, POLLOUT, now_ms() + CONNECT_TIMEOUT_MS, 0)
                                    : -errno;
        socklen_t el = sizeof(int);
        int soerr = 0;
        if (!err && getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &el) == 0 && soerr)
            err = -soerr;
    }
    if (!err && sa->sa_family == AF_UNIX && !same_user(fd))
        err = -EACCES;
    if (err) {
        close(fd);
        return err;
    }
    int one = 1;
    if (sa->sa_family != AF_UNIX)
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return fd;
}

static void remember(wmpi_boot *b, const struct sockaddr *sa, socklen_t len)
{
    if (len <= sizeof b->ctl_addr) {
        memcpy(b->ctl_addr, sa, len);
        b->ctl_addrlen = (unsigned)len;
    }
}

/* Connect to "unix:@name", mpirun's listener for this host's ranks. */
static int connect_unix(wmpi_boot *b, const char *name)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    size_t n = strlen(name);
    if (name[0] != '@' || n < 2 || n > sizeof sa.sun_path)
        return -EINVAL;
    memcpy(sa.sun_path + 1, name + 1, n - 1); /* sun_path[0] = 0: abstract */
    socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n);
    int fd = connect_addr((struct sockaddr *)&sa, len);
    if (fd >= 0)
        remember(b, (struct sockaddr *)&sa, len);
    return fd;
}

/* Connect to one "host:port" ("[v6]:port" too) or "unix:@name"; remember
 * the address. */
static int connect_item(wmpi_boot *b, char *item)
{
    if (strncmp(item, "unix:", 5) == 0)
        return connect_unix(b, item + 5);
    char *colon = strrchr(item, ':');
    if (!colon || colon == item)
        return -EINVAL;
    *colon = '\0';
    char *host = item;
    if (host[0] == '[' && colon[-1] == ']') {
        host++;
        colon[-1] = '\0';
    }
    struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV };
    struct addrinfo *res;
    if (getaddrinfo(host, colon + 1, &hints, &res) != 0)
        return -EHOSTUNREACH;
    int fd = -EHOSTUNREACH;
    for (struct addrinfo *a = res; a && fd < 0; a = a->ai_next) {
        fd = connect_addr(a->ai_addr, a->ai_addrlen);
        if (fd >= 0)
            remember(b, a->ai_addr, a->ai_addrlen);
    }
    freeaddrinfo(res);
    return fd;
}

/* Try each address of the comma-separated list in turn. */
static int connect_control(wmpi_boot *b, const char *list)
{
    char *copy = strdup(list), *save = NULL;
    if (!copy)
        return WEFT_ENOMEM;
    int fd = -EINVAL;
    for (char *it = strtok_r(copy, ",", &save); it && fd < 0; it = strtok_r(NULL, ",", &save))
        fd = connect_item(b, it);
    free(copy);
    if (fd < 0)
        wmpi_boot_say("rank %d cannot reach mpirun's control server at %s: %s", b->rank,
                      list, strerror(-fd));
    return fd;
}

/* ------------------------------------------------------------ environment */

/* Integer variable `name` into *out; dflt if unset, or an error if dflt
 * is -1 (required). */
static int env_int(const char *name, int min, int max, int dflt, int *out)
{
    const char *s = getenv(name);
    if (!s && dflt >= 0) {
        *out = dflt;
        return 0;
    }
    if (!s) {
        wmpi_boot_say("%s is not set (was this started by mpirun?)", name);
        return WEFT_EINVAL;
    }
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (!*s || *end || errno || v < min || v > max) {
        wmpi_boot_say("%s=\"%s\" is invalid (expected an integer from %d to %d)", name, s,
                      min, max);
        return WEFT_EINVAL;
    }
    *out = (int)v;
    return 0;
}

static int parse_env(wmpi_boot *b)
{
    if (env_int(WMPI_ENV_SIZE, 1, INT_MAX, -1, &b->size) ||
        env_int(WMPI_ENV_RANK, 0, b->size - 1, -1, &b->rank) ||
        env_int(WMPI_ENV_LOCAL_SIZE, 1, b->size, b->size, &b->local_size) ||
        env_int(WMPI_ENV_LOCAL_RANK, 0, b->local_size - 1, b->rank % b->local_size,
                &b->local_rank) ||
        env_int(WMPI_ENV_APPNUM, 0, b->size - 1, 0, &b->appnum))
        return WEFT_EINVAL;
    const char *secret = getenv(WMPI_ENV_SECRET), *jobid = getenv(WMPI_ENV_JOBID);
    if (!secret || wmpi_hex_decode(secret, b->secret, WMPI_SECRET_LEN) != 0) {
        wmpi_boot_say("%s is missing or not %d hex digits", WMPI_ENV_SECRET,
                      2 * WMPI_SECRET_LEN);
        return WEFT_EINVAL;
    }
    snprintf(b->jobid, sizeof b->jobid, "%s", jobid ? jobid : "unknown");
    if (!getenv(WMPI_ENV_CONTROL)) {
        wmpi_boot_say("%s is not set (was this started by mpirun?)", WMPI_ENV_CONTROL);
        return WEFT_EINVAL;
    }
    return 0;
}

/* HELLO, then WELCOME: the launcher says nothing at all to a refused rank. */
static int join(wmpi_boot *b, int fd)
{
    uint8_t w[WMPI_WELCOME_LEN];
    int err = send_hello(fd, b, WMPI_HELLO_RANK);
    if (!err)
        err = recv_msg(fd, WMPI_MSG_WELCOME, w, sizeof w, now_ms() + REPLY_TIMEOUT_MS, 1);
    if (err == -ECONNRESET || err == -EPIPE) {
        wmpi_boot_say("mpirun refused rank %d (wrong job secret, or rank already joined)",
                      b->rank);
        return WEFT_EPERM;
    }
    if (!err && (wmpi_get32(w) != (uint32_t)b->size || wmpi_get32(w + 4) != (uint32_t)b->rank))
        err = -EPROTO;
    if (err)
        wmpi_boot_say("rank %d: handshake with mpirun failed: %s", b->rank, strerror(-err));
    return err;
}

/* ------------------------------------------------------------ operations */

static int mpirun_init(wmpi_boot *b)
{
    int err = parse_env(b);
    if (err)
        return err;
    int fd = connect_control(b, getenv(WMPI_ENV_CONTROL));
    if (fd < 0)
        return fd;
    err = join(b, fd);
    if (err) {
        close(fd);
        return err;
    }
    b->control_fd = fd;
    return 0;
}

static int mpirun_allgather(wmpi_boot *b, const void *mine, size_t len, void *all)
{
    if (b->control_fd < 0)
        return WEFT_ESTATE;
    int err = send_msg(b->control_fd, WMPI_MSG_GATHER, mine, len);
    if (!err)
        err = recv_msg(b->control_fd, WMPI_MSG_GATHERED, all, len * (size_t)b->size, -1, 1);
    if (err)
        wmpi_boot_say("rank %d lost its connection to mpirun: %s", b->rank, strerror(-err));
    return err;
}

static int mpirun_barrier(wmpi_boot *b)
{
    return mpirun_allgather(b, NULL, 0, NULL);
}

static int mpirun_finalize(wmpi_boot *b)
{
    if (b->control_fd < 0)
        return 0;
    int err = send_msg(b->control_fd, WMPI_MSG_FINALIZE, NULL, 0);
    if (!err)
        err = recv_msg(b->control_fd, WMPI_MSG_FINALIZED, NULL, 0, now_ms() + REPLY_TIMEOUT_MS, 1);
    if (err) /* mpirun will then report an exit without MPI_Finalize: say why */
        wmpi_boot_say("rank %d: mpirun did not acknowledge MPI_Finalize: %s", b->rank,
                      strerror(-err));
    close(b->control_fd);
    b->control_fd = -1;
    return err;
}

/* Send ABORT on a connection of its own; 0 once mpirun acknowledged it. */
static int mpirun_abort(wmpi_boot *b, int code, const char *msg)
{
    if (!b->ctl_addrlen)
        return WEFT_ESTATE;
    struct sockaddr_storage sa;
    memcpy(&sa, b->ctl_addr, b->ctl_addrlen);
    int fd = connect_addr((struct sockaddr *)&sa, b->ctl_addrlen);
    if (fd < 0)
        return fd;
    uint8_t body[4 + WMPI_ABORT_MSG_MAX];
    size_t n = msg ? strnlen(msg, WMPI_ABORT_MSG_MAX) : 0;
    wmpi_put32(body, (uint32_t)code);
    memcpy(body + 4, msg ? msg : "", n);
    int err = send_hello(fd, b, WMPI_HELLO_ABORT);
    if (!err)
        err = send_msg(fd, WMPI_MSG_ABORT, body, 4 + n);
    if (!err)
        err = recv_msg(fd, WMPI_MSG_ABORTED, NULL, 0, now_ms() + ABORT_TIMEOUT_MS, 0);
    close(fd);
    return err;
}

const struct wmpi_boot_ops wmpi_boot_weft_ops = {
    .name = "mpirun",
    .init = mpirun_init,
    .allgather = mpirun_allgather,
    .barrier = mpirun_barrier,
    .abort = mpirun_abort,
    .finalize = mpirun_finalize,
};
