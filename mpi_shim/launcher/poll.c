/* mpirun's poll loop helpers, shared by every file that serves
 * descriptors (job.c runs the loop): the poll set each round is built in,
 * the clock its timers use, and the one way mpirun speaks to the user.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "launcher.h"

void wl_say(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("mpirun: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

int64_t wl_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void wl_poll_add(struct wl_poll *p, int fd, short events, wl_handler *fn, void *arg)
{
    if (p->n == p->cap) {
        int cap = p->cap ? 2 * p->cap : 64;
        struct pollfd *pfd = realloc(p->pfd, (size_t)cap * sizeof *pfd);
        struct wl_slot *slot = pfd ? realloc(p->slot, (size_t)cap * sizeof *slot) : NULL;
        if (pfd)
            p->pfd = pfd;
        if (!slot) {
            wl_say("out of memory");
            exit(WL_EXIT_INTERNAL);
        }
        p->slot = slot;
        p->cap = cap;
    }
    p->pfd[p->n] = (struct pollfd){ .fd = fd, .events = events };
    p->slot[p->n++] = (struct wl_slot){ fn, arg };
}

void wl_poll_wake_at(struct wl_poll *p, int64_t when_ms)
{
    if (p->deadline < 0 || when_ms < p->deadline)
        p->deadline = when_ms;
}
