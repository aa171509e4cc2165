/* Waiting on file descriptors and the blocking I/O calls built on it:
 * weft_fd_wait, weft_read/write/recv/send/accept/connect.
 *
 * A wait on an fd is a request of the built-in fd class (fdclass.c),
 * detected like any other (the routes: include/weft/io.h): by idle
 * workers, by whoever sleeps in the poll set, at busy safe points (once a
 * tick). The call first
 * tests the fd with poll(2) (timeout 0): an fd already ready never arms a
 * registration or blocks. In naive mode the waiter instead loops on that
 * test and yields (the paper's baseline).
 *
 * The I/O calls try the system call first, non-blocking, and wait only on
 * EAGAIN - the common ready case costs one system call more than plain
 * blocking I/O for read/write/accept/connect (the fcntl(F_GETFL) that
 * checks O_NONBLOCK; the flag is set once and stays: a blocking call on a
 * worker would stall every ULT on it), and none for recv/send, which use
 * MSG_DONTWAIT and leave the fd's flags alone. The fd's flag is checked at
 * every call rather than cached, because an fd number can be closed and
 * reused behind our back. write/send keep going until every byte is
 * written, as a blocking socket does; read/recv return what is there.
 * Errors are -errno (EINTR is retried, never returned).
 *
 * errno is read right after each system call, in libweft, where the
 * scheduler never preempts (safepc.c): the ULT cannot have migrated to
 * another kernel thread in between.
 */
#include <fcntl.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include "io/io.h"
#include "timer/timer.h"

#define WEFT_IO_ALL (WEFT_IO_READ | WEFT_IO_WRITE)

/* ------------------------------------------------------------- fd waits */

static int wait_naive(int fd, unsigned events, int64_t deadline)
{
    for (;;) {
        int got = wf_io_fd_test(fd, events);
        if (got != 0)
            return got;
        if (deadline >= 0 && wf_io_now() >= deadline)
            return WEFT_ETIMEDOUT;
        if (wf_self())
            weft_thread_yield();
        else
            sched_yield();
    }
}

static int wait_armed(weft_io_t h, int fd, unsigned events, int64_t deadline)
{
    wf_wait w;
    wf_wait_init(&w);
    wf_io_req r = { .wait = &w, .events = events, .start_ns = wf_io_now() };
    int err = wf_io_fd_add(fd, &r);
    if (err == -EPERM)
        return (int)events; /* not pollable (a regular file): always ready */
    if (err == WF_IO_FD_SIGIO)
        wf_io_sigio_kick();
    else if (err)
        return err;
    wf_timeout to;
    wf_timeout_start(&to, &w, deadline);
    wf_io_cover(h);
    int reason = wf_wait_block(&w, NULL, NULL);
    wf_timeout_stop(&to);
    if (reason == 0)
        return (int)r.result;
    wf_io_fd_remove(fd, &r);
    return reason;
}

/* `tested`: the caller just saw the fd not ready (EAGAIN). */
static int fd_wait(int fd, unsigned events, int64_t deadline, int tested)
{
    if (fd < 0 || !events || (events & ~WEFT_IO_ALL))
        return fd < 0 ? -EBADF : WEFT_EINVAL;
    weft_io_t h = wf_io_fd_handle();
    if (!h)
        return WEFT_ENOMEM;
    wf_io_stat_add(&h->st.waits, 1);
    int got = tested ? 0 : wf_io_fd_test(fd, events);
    if (got > 0)
        wf_io_stat_detect(h, WF_DET_IMMEDIATE, 0, 1);
    if (got == 0 && deadline != 0)
        got = wf_io_strategy() == WEFT_IO_NAIVE ? wait_naive(fd, events, deadline)
                                                : wait_armed(h, fd, events, deadline);
    else if (got == 0)
        got = WEFT_ETIMEDOUT;
    if (got == WEFT_ETIMEDOUT)
        wf_io_stat_add(&h->st.timeouts, 1);
    return got;
}

int weft_fd_wait(int fd, unsigned events, int64_t deadline)
{
    return fd_wait(fd, events, deadline, 0);
}

/* ------------------------------------------------------------- I/O calls */

static int make_nonblocking(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0)
        return -errno;
    if (!(fl & O_NONBLOCK) && fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
        return -errno;
    return 0;
}

/* After a failed call: 0 to retry (EINTR, or waited until ready), else the
 * error to return. */
static int retry_after(int err, int fd, unsigned events)
{
    if (err == EINTR)
        return 0;
    if (err != EAGAIN && err != EWOULDBLOCK)
        return -err;
    int got = fd_wait(fd, events, WEFT_FOREVER, 1);
    return got < 0 ? got : 0;
}

ssize_t weft_read(int fd, void *buf, size_t len)
{
    int err = make_nonblocking(fd);
    while (!err) {
        ssize_t n = read(fd, buf, len);
        if (n >= 0)
            return n;
        err = retry_after(errno, fd, WEFT_IO_READ);
    }
    return err;
}

ssize_t weft_recv(int fd, void *buf, size_t len, int flags)
{
    int err = 0;
    while (!err) {
        ssize_t n = recv(fd, buf, len, flags | MSG_DONTWAIT);
        if (n >= 0)
            return n;
        err = retry_after(errno, fd, WEFT_IO_READ);
    }
    return err;
}

/* Write all of buf (write, or send if is_send): a partial count only if
 * an error stops it after some bytes. */
static ssize_t put_all(int fd, const char *buf, size_t len, int flags, int is_send)
{
    size_t done = 0;
    do {
        ssize_t n = is_send ? send(fd, buf + done, len - done, flags | MSG_DONTWAIT)
                            : write(fd, buf + done, len - done);
        if (n >= 0) {
            done += (size_t)n;
            continue;
        }
        int err = retry_after(errno, fd, WEFT_IO_WRITE);
        if (err)
            return done ? (ssize_t)done : err;
    } while (done < len);
    return (ssize_t)done;
}

ssize_t weft_write(int fd, const void *buf, size_t len)
{
    int err = make_nonblocking(fd);
    return err ? err : put_all(fd, buf, len, 0, 0);
}

ssize_t weft_send(int fd, const void *buf, size_t len, int flags)
{
    return put_all(fd, buf, len, flags, 1);
}

int weft_accept(int fd, struct sockaddr *addr, socklen_t *addrlen)
{
    int err = make_nonblocking(fd);
    while (!err) {
        int s = accept(fd, addr, addrlen);
        if (s >= 0)
            return s;
        err = retry_after(errno, fd, WEFT_IO_READ);
    }
    return err;
}

static int connect_result(int fd)
{
    int soerr = 0;
    socklen_t len = sizeof soerr;
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) < 0)
        return -errno;
    return -soerr;
}

int weft_connect(int fd, const struct sockaddr *addr, socklen_t addrlen)
{
    int err = make_nonblocking(fd);
    while (!err) {
        if (connect(fd, addr, addrlen) == 0)
            return 0;
        int e = errno;
        if (e == EINPROGRESS || e == EINTR) { /* completes in the background */
            int got = fd_wait(fd, WEFT_IO_WRITE, WEFT_FOREVER, 1);
            return got < 0 ? got : connect_result(fd);
        }
        err = retry_after(e, fd, WEFT_IO_WRITE); /* AF_UNIX EAGAIN: retry */
    }
    return err;
}
