/* bench/slow_wake's emulation of a host slow to resume a halted virtual
 * CPU, loaded into each rank with LD_PRELOAD: an epoll_wait that really
 * slept (it waited, more than 20 us, and an event ended it) returns
 * SLOW_WAKE_US microseconds late. Polls (timeout 0) and timeouts are left
 * alone. The data that ended the sleep stays unread meanwhile, as it does
 * while a real virtual CPU waits for the host. */
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <time.h>

#define SLEPT_NS 20000

static long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static long long delay_ns(void)
{
    const char *s = getenv("SLOW_WAKE_US");
    return s ? atoll(s) * 1000 : 0;
}

int epoll_wait(int epfd, struct epoll_event *ev, int max, int timeout_ms)
{
    static int (*real)(int, struct epoll_event *, int, int);
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "epoll_wait");
    long long t0 = now_ns();
    int n = real(epfd, ev, max, timeout_ms);
    long long d = delay_ns();
    if (timeout_ms != 0 && n > 0 && d > 0 && now_ns() - t0 > SLEPT_NS) {
        struct timespec ts = { (time_t)(d / 1000000000), (long)(d % 1000000000) };
        nanosleep(&ts, NULL);
    }
    return n;
}
