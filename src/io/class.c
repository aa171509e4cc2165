/* Event classes come and go: the I/O server's start-up, registering and
 * unregistering a class, and the strategy's public setters. This file is
 * the top of src/io: it wires a new class to the detection routes below
 * it (the poll set, a blocker thread, polling).
 *
 * Registering: a class's pollfd goes into the poll set; without one, a
 * block() callback gets a blocker thread; with neither, the class is
 * polled. The handle joins the registry before its fd joins the set: the
 * set's events are dropped for handles not in the registry, and one
 * dropped at registration would leave the fd disarmed for good.
 *
 * Unregistering: the handle leaves the registry (no route reaches it any
 * more) and the poll set, its blocker thread (if any) is stopped and
 * joined (it may be inside block(), at most one WF_IO_BLOCK_SLICE_MS
 * slice), every waiting request is unlinked and its waiter woken with
 * WEFT_ECANCELED, and the handle is freed once h->users - the waiters
 * still inside a wait on it - drops to zero. Those waiters were just
 * woken, so that wait is short; a ULT unregistering yields meanwhile.
 *
 * Not handled: fork() without exec. The child inherits the registry and
 * the poll set (shared with the parent) but none of the server's threads.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include "io/io.h"

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

static void init_once_fn(void)
{
    wf_io_strategy_from_env();
    wf_io_stats_from_env();
    if (wf_io_set_init() != 0)
        fputs("weft: io: cannot create the poll set; waits are detected by polling\n", stderr);
    if (wf_io_hooks_install() != 0)
        fputs("weft: io: no free scheduler hook slot; safe-point polling is off\n", stderr);
    wf_io_server_start();
}

void wf_io_init(void)
{
    pthread_once(&init_once, init_once_fn);
}

int weft_io_set_strategy(weft_io_strategy s)
{
    if (s < WEFT_IO_ADAPTIVE || s > WEFT_IO_NAIVE)
        return WEFT_EINVAL;
    wf_io_init();
    wf_io_strategy_set(s);
    return 0;
}

weft_io_strategy weft_io_get_strategy(void)
{
    wf_io_init();
    return wf_io_strategy();
}

/* ------------------------------------------------------- registration */

static void attach_detection(weft_io_t h)
{
    if (h->fd >= 0 && wf_io_set_add_handle(h) != 0)
        h->fd = -1;
    if (h->fd < 0 && h->p.block && wf_io_blocker_start(h) == 0)
        h->has_blocker = 1;
}

weft_io_t wf_io_register_handle(const weft_io_params *p, void (*dtor)(void *), int builtin)
{
    weft_io_t h = calloc(1, sizeof *h);
    if (!h)
        return WEFT_IO_NULL;
    h->p = *p;
    h->dtor = dtor;
    h->builtin = builtin;
    h->fd = -1;
    snprintf(h->name, sizeof h->name, "%s", p->name ? p->name : "io");
    h->p.name = h->name;
    wf_io_adapt_init(h);
    if (h->p.pollfd && !builtin)
        h->fd = h->p.pollfd(h->p.ctx);
    wf_io_registry_add(h);
    attach_detection(h);
    return h;
}

weft_io_t weft_io_register(const weft_io_params *p)
{
    if (!p || !p->poll)
        return WEFT_IO_NULL;
    if (!weft_is_initialized() && weft_init() != 0)
        return WEFT_IO_NULL;
    wf_io_init();
    return wf_io_register_handle(p, NULL, 0);
}

/* Unlink every waiting request and wake its waiter with ECANCELED. */
static void cancel_waiters(weft_io_t h)
{
    wf_lock(&h->lock);
    h->dead = 1;
    while (h->waiting.head) {
        wf_io_req *r = h->waiting.head;
        wf_io_unlink(h, r);
        wf_wait_wake_urgent(r->wait, WEFT_ECANCELED);
    }
    wf_unlock(&h->lock);
}

static void wait_for_users(weft_io_t h)
{
    while (__atomic_load_n(&h->users, __ATOMIC_ACQUIRE) > 0) {
        if (wf_self())
            weft_thread_yield();
        else
            sched_yield();
    }
}

int weft_io_unregister(weft_io_t h)
{
    if (!h || h->builtin)
        return WEFT_EINVAL;
    wf_io_registry_remove(h);
    if (h->fd >= 0)
        wf_io_set_remove_handle(h);
    if (h->has_blocker)
        wf_io_blocker_stop(h);
    cancel_waiters(h);
    wait_for_users(h);
    if (wf_io_stats_on)
        wf_io_stats_print_one(2, h); /* its figures would be lost at exit */
    if (h->dtor)
        h->dtor(h->p.ctx);
    free(h);
    return 0;
}

/* ------------------------------------------------------- the fd class */

static pthread_once_t fd_once = PTHREAD_ONCE_INIT;
static weft_io_t fd_handle;

static int never_called(void *ctx)
{
    (void)ctx;
    return -1;
}

/* Busy safe points check the set at most once per tick (an epoll_wait per
 * context switch would cost more than the switch); the set's sleeper and
 * the idle workers give the reactivity. */
static void create_fd_class(void)
{
    if (wf_io_set_epfd() < 0)
        return;
    weft_io_params p = { .name = "fd", .poll = never_called, .frequency = 1 };
    weft_io_t h = wf_io_register_handle(&p, NULL, 1);
    wf_io_fd_class_init(h);
    __atomic_store_n(&fd_handle, h, __ATOMIC_RELEASE);
}

weft_io_t wf_io_fd_handle(void)
{
    wf_io_init();
    pthread_once(&fd_once, create_fd_class);
    return __atomic_load_n(&fd_handle, __ATOMIC_ACQUIRE);
}
