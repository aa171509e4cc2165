/* No EINTR from Weft: a ULT's blocking system calls are not cut short by
 * the preemption signal.
 *
 * With a 100 us quantum and busy ULTs keeping every worker contended (so
 * time slices keep firing), a ULT blocks in read() on an empty pipe until
 * an external pthread writes ~50 ms later: read must return the data, never
 * -1/EINTR. Likewise a ULT blocked in write() on a full pipe until an
 * external pthread drains it: write must return the full count.
 * Sleeps are different: Linux never restarts nanosleep() after a handler,
 * even with SA_RESTART, so the runtime must resume them itself: nanosleep()
 * and usleep() in a ULT must return 0 and never sleep less than asked.
 *
 * cmocka assertions are only made on the main thread.
 */
#include "test_support.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <weft.h>

#define DELAY_NS 50000000LL /* the external thread acts after ~50 ms */
#define ROUNDS   3
#define MAX_BUSY 64

static atomic_int stop;
static weft_thread_t busy_ts[MAX_BUSY];
static int nbusy;

static void *busy(void *arg)
{
    volatile uint64_t n = 0;
    (void)arg;
    while (!atomic_load_explicit(&stop, memory_order_relaxed))
        n++;
    return NULL;
}

static void start_busy(void)
{
    atomic_store(&stop, 0);
    nbusy = 2 * weft_num_workers();
    if (nbusy > MAX_BUSY)
        nbusy = MAX_BUSY;
    for (int i = 0; i < nbusy; i++)
        assert_int_equal(weft_thread_create(&busy_ts[i], NULL, busy, NULL), 0);
}

static void stop_busy(void)
{
    atomic_store(&stop, 1);
    for (int i = 0; i < nbusy; i++)
        assert_int_equal(weft_thread_join(busy_ts[i], NULL), 0);
}

/* Sleep on an external pthread, immune to EINTR (absolute deadline). */
static void sleep_abs(int64_t ns)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    int64_t t = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec + ns;
    ts.tv_sec = t / 1000000000;
    ts.tv_nsec = t % 1000000000;
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
}

struct io_call {
    int fd;
    size_t len;
    ssize_t rc;
    int err;
    char buf[PIPE_BUF];
};

static int setup(void **state)
{
    if (wt_runtime_setup(state) != 0)
        return -1;
    return weft_set_quantum(100000);
}

/* ------------------------------------------------------------- read */

static const char msg[] = "weft: no EINTR!";

static void *reader(void *arg)
{
    struct io_call *c = arg;
    errno = 0;
    c->rc = read(c->fd, c->buf, c->len);
    c->err = errno;
    return NULL;
}

static void *late_writer(void *arg)
{
    int fd = *(int *)arg;
    sleep_abs(DELAY_NS);
    if (write(fd, msg, sizeof msg) != (ssize_t)sizeof msg)
        return (void *)1;
    return NULL;
}

static void read_once(void)
{
    int p[2];
    struct io_call c = {.len = sizeof msg};
    weft_thread_t r;
    pthread_t w;
    void *wrc = NULL;

    assert_int_equal(pipe(p), 0);
    c.fd = p[0];
    /* The external thread first: once the reader blocks its worker in
     * read(), main may not run again until the data arrives. */
    assert_int_equal(pthread_create(&w, NULL, late_writer, &p[1]), 0);
    start_busy();
    assert_int_equal(weft_thread_create(&r, NULL, reader, &c), 0);
    assert_int_equal(weft_thread_join(r, NULL), 0);
    stop_busy();
    assert_int_equal(pthread_join(w, &wrc), 0);
    close(p[0]);
    close(p[1]);
    assert_null(wrc);
    if (c.rc < 0)
        fail_msg("read returned -1, errno %d (%s)", c.err, strerror(c.err));
    assert_int_equal(c.rc, sizeof msg);
    assert_memory_equal(c.buf, msg, sizeof msg);
}

static void test_read_not_interrupted(void **state)
{
    (void)state;
    WT_SKIP_UNDER_TSAN();
    for (int i = 0; i < ROUNDS; i++)
        read_once();
}

/* ------------------------------------------------------------ write */

/* Fill the pipe without blocking; returns the bytes written. */
static size_t fill_pipe(int fd)
{
    char chunk[1024];
    size_t total = 0;
    ssize_t n;

    memset(chunk, 'f', sizeof chunk);
    fcntl(fd, F_SETPIPE_SZ, 4096); /* best effort: a smaller pipe */
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    while ((n = write(fd, chunk, sizeof chunk)) > 0)
        total += (size_t)n;
    while ((n = write(fd, chunk, 1)) > 0)
        total += (size_t)n;
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return total;
}

struct drain {
    int fd;
    size_t want;
    size_t got;
};

static void *late_drainer(void *arg)
{
    struct drain *d = arg;
    char buf[4096];
    ssize_t n = 1;

    sleep_abs(DELAY_NS);
    while (d->got < d->want && n > 0) {
        n = read(d->fd, buf, sizeof buf);
        if (n > 0)
            d->got += (size_t)n;
    }
    return NULL;
}

static void *writer(void *arg)
{
    struct io_call *c = arg;
    errno = 0;
    c->rc = write(c->fd, c->buf, c->len); /* <= PIPE_BUF: all or nothing */
    c->err = errno;
    return NULL;
}

static void write_once(void)
{
    int p[2];
    struct io_call c = {.len = PIPE_BUF};
    struct drain d;
    weft_thread_t wr;
    pthread_t dr;

    assert_int_equal(pipe(p), 0);
    memset(c.buf, 'w', sizeof c.buf);
    c.fd = p[1];
    d.fd = p[0];
    d.want = fill_pipe(p[1]) + PIPE_BUF;
    d.got = 0;
    assert_int_equal(pthread_create(&dr, NULL, late_drainer, &d), 0);
    start_busy();
    assert_int_equal(weft_thread_create(&wr, NULL, writer, &c), 0);
    assert_int_equal(weft_thread_join(wr, NULL), 0);
    stop_busy();
    close(p[1]); /* if the write failed, the drainer sees EOF, not a hang */
    assert_int_equal(pthread_join(dr, NULL), 0);
    close(p[0]);
    if (c.rc < 0)
        fail_msg("write returned -1, errno %d (%s)", c.err, strerror(c.err));
    assert_int_equal(c.rc, PIPE_BUF);
    assert_int_equal(d.got, d.want);
}

static void test_write_not_interrupted(void **state)
{
    (void)state;
    WT_SKIP_UNDER_TSAN();
    for (int i = 0; i < ROUNDS; i++)
        write_once();
}

/* ------------------------------------------------------------ sleeps */

struct sleep_call {
    int rc, err;
    int64_t slept_ns;
};

static void *sleeper(void *arg)
{
    struct sleep_call *c = arg;
    struct timespec ts = {0, DELAY_NS};
    int64_t t0 = wt_now_ns();

    errno = 0;
    c[0].rc = nanosleep(&ts, NULL);
    c[0].err = errno;
    c[0].slept_ns = wt_now_ns() - t0;
    t0 = wt_now_ns();
    errno = 0;
    c[1].rc = usleep(DELAY_NS / 1000);
    c[1].err = errno;
    c[1].slept_ns = wt_now_ns() - t0;
    return NULL;
}

static void check_sleep(const char *what, const struct sleep_call *c)
{
    if (c->rc != 0)
        fail_msg("%s returned %d, errno %d (%s)", what, c->rc, c->err,
                 strerror(c->err));
    /* a lower bound only: a sleep is never cut short by a time slice */
    if (c->slept_ns < DELAY_NS)
        fail_msg("%s slept %lld ns of %lld", what, (long long)c->slept_ns,
                 (long long)DELAY_NS);
}

static void test_sleep_not_interrupted(void **state)
{
    (void)state;
    WT_SKIP_UNDER_TSAN();
    struct sleep_call c[2] = {{0}};
    weft_thread_t s;

    start_busy();
    assert_int_equal(weft_thread_create(&s, NULL, sleeper, c), 0);
    assert_int_equal(weft_thread_join(s, NULL), 0);
    stop_busy();
    check_sleep("nanosleep", &c[0]);
    check_sleep("usleep", &c[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read_not_interrupted),
        cmocka_unit_test(test_write_not_interrupted),
        cmocka_unit_test(test_sleep_not_interrupted),
    };
    return cmocka_run_group_tests(tests, setup, wt_runtime_teardown);
}
