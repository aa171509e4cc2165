/* Sleeping system calls that Linux never restarts, made immune to Weft's
 * preemption ticks.
 *
 * SA_RESTART makes the kernel restart read, write, futex waits and most
 * other calls that a preemption tick interrupts. A few calls are never
 * restarted after a signal handler ran, whatever SA_RESTART says: the
 * sleeps (nanosleep, clock_nanosleep, and through them usleep and sleep),
 * poll, select and epoll_wait. A user-level thread that calls them on a
 * busy worker would see EINTR (or a short sleep) caused by Weft.
 *
 * Weft therefore defines the sleep calls itself (libweft comes before libc
 * in the link order, so the program's calls reach these). Called by a ULT,
 * a relative sleep (or an absolute one on CLOCK_MONOTONIC) goes to the
 * timer layer's sleep hook: only the ULT sleeps, its worker runs others
 * (so a signal handler cannot cut such a sleep short). Otherwise the sleep
 * becomes an absolute CLOCK_MONOTONIC deadline, slept again when the
 * interruption was one of our ticks (the worker's ticks_seen counter moved
 * while it slept); an interruption by any other signal is returned to the
 * caller as usual, with the time left. Calls from kernel threads that are
 * not workers receive no ticks and are passed through.
 * poll, select and epoll_wait are left to the I/O server (weft_fd_wait and
 * friends), which waits without blocking the worker at all.
 */
#include <errno.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "sched/sched_internal.h"

#define NS_PER_S 1000000000L

static int raw_clock_nanosleep(clockid_t clk, int flags, const struct timespec *req,
                               struct timespec *rem)
{
    long r = syscall(SYS_clock_nanosleep, clk, flags, req, rem);
    return r == 0 ? 0 : errno;
}

static struct timespec ts_add(struct timespec a, const struct timespec *b)
{
    a.tv_sec += b->tv_sec;
    a.tv_nsec += b->tv_nsec;
    if (a.tv_nsec >= NS_PER_S) {
        a.tv_sec++;
        a.tv_nsec -= NS_PER_S;
    }
    return a;
}

static void time_left(clockid_t clk, const struct timespec *deadline, struct timespec *rem)
{
    struct timespec now;
    clock_gettime(clk, &now);
    long long ns = (long long)(deadline->tv_sec - now.tv_sec) * NS_PER_S +
                   (deadline->tv_nsec - now.tv_nsec);
    if (ns < 0)
        ns = 0;
    rem->tv_sec = (time_t)(ns / NS_PER_S);
    rem->tv_nsec = (long)(ns % NS_PER_S);
}

/* Sleep until `deadline` on `clk`, again after each tick of ours. */
static int sleep_until(clockid_t clk, const struct timespec *deadline)
{
    wf_worker *w = wf_worker_self();
    for (;;) {
        uint64_t seen = w ? w->ticks_seen : 0;
        int err = raw_clock_nanosleep(clk, TIMER_ABSTIME, deadline, NULL);
        if (err != EINTR || !w || w->ticks_seen == seen)
            return err;
    }
}

static int (*ult_sleep_hook)(int64_t deadline_ns);

void wf_sched_set_sleep_hook(int (*sleep_until)(int64_t deadline_ns))
{
    ult_sleep_hook = sleep_until;
}

static int64_t ts_ns(const struct timespec *t)
{
    return (int64_t)t->tv_sec * NS_PER_S + t->tv_nsec;
}

/* A ULT's sleep through the timer layer: 1 if done, 0 if not applicable. */
static int ult_sleep(clockid_t clk, int flags, const struct timespec *req)
{
    int absolute = flags & TIMER_ABSTIME;
    if (!ult_sleep_hook || !wf_self() || (absolute && clk != CLOCK_MONOTONIC))
        return 0;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    ult_sleep_hook(absolute ? ts_ns(req) : ts_ns(&now) + ts_ns(req));
    return 1;
}

int clock_nanosleep(clockid_t clk, int flags, const struct timespec *req,
                    struct timespec *rem)
{
    if (!req || req->tv_nsec < 0 || req->tv_nsec >= NS_PER_S || req->tv_sec < 0)
        return EINVAL;
    if (ult_sleep(clk, flags, req))
        return 0;
    if (flags & TIMER_ABSTIME)
        return sleep_until(clk, req);
    struct timespec now;
    if (clock_gettime(clk, &now) != 0)
        return EINVAL;
    struct timespec deadline = ts_add(now, req);
    int err = sleep_until(clk, &deadline);
    if (err == EINTR && rem)
        time_left(clk, &deadline, rem);
    return err;
}

int nanosleep(const struct timespec *req, struct timespec *rem)
{
    int err = clock_nanosleep(CLOCK_MONOTONIC, 0, req, rem);
    if (err) {
        errno = err;
        return -1;
    }
    return 0;
}

int usleep(useconds_t usec)
{
    struct timespec req = { (time_t)(usec / 1000000), (long)(usec % 1000000) * 1000 };
    return nanosleep(&req, NULL);
}

unsigned int sleep(unsigned int seconds)
{
    struct timespec req = { (time_t)seconds, 0 }, rem = { 0, 0 };
    if (nanosleep(&req, &rem) == 0)
        return 0;
    return (unsigned)rem.tv_sec + (rem.tv_nsec > 0);
}
