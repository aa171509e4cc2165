/* The I/O server's registry: start-up and configuration, registering and
 * unregistering event classes, the detection strategy, the "current
 * handle" of callbacks and the request iteration behind
 * WEFT_IO_FOR_EACH_REQUEST.
 *
 * Design. Handles live on one singly linked list (wf_io_registry). Every
 * route that polls handles on the server's behalf (idle workers, the poll
 * set's sleeper, busy safe points) walks it under wf_io_reg_lock (safe
 * points with a trylock: a busy registry is skipped, never waited for),
 * and touches a handle only while it is on the list. A global counter of
 * waiting requests (wf_io_nwaiting) lets every route return after one
 * load when nothing waits.
 * Rejected: a per-worker copy of the list (RCU-like) - cheaper to read,
 * but unregistering would then need a grace period across workers, and
 * the registry holds a handful of handles (MPI, fds, a few user classes).
 *
 * Unregistering: the handle leaves the registry (no route can reach it any
 * more) and the poll set, its blocker thread (if any) is stopped and
 * joined (it may be inside block(), at most one WF_IO_BLOCK_SLICE_MS
 * slice), every waiting request is unlinked and its waiter woken with
 * WEFT_ECANCELED, and the handle is freed once h->users - the waiters
 * still inside a wait on it - drops to zero. Those waiters were just
 * woken, so that wait is short; a ULT unregistering yields meanwhile.
 *
 * Configuration (environment, read once at the first use of the server):
 *   WEFT_IO_STRATEGY  adaptive (default) | polling | blocking | naive
 *   WEFT_IO_STATS     1: print every handle's statistics at exit (and a
 *                     handle's own when it is unregistered)
 *
 * The current handle (weft_io_current) and the idle-poll flag are per
 * kernel thread: callbacks run inside a critical section (or on a server
 * kernel thread), so the ULT that set them cannot migrate meanwhile.
 *
 * Not handled: fork() without exec. The child inherits the registry and
 * the poll set (shared with the parent) but none of the server's threads.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/io.h"

int wf_io_reg_lock;
struct weft_io *wf_io_registry;
int wf_io_nwaiting;
int wf_io_nblocked;
int wf_io_stats_on;

static int strategy = WEFT_IO_ADAPTIVE;
static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static __thread weft_io_t current;
static __thread int idle_polling;

/* ------------------------------------------------------------ start-up */

static int parse_strategy(const char *s, weft_io_strategy *out)
{
    static const char *names[] = { "adaptive", "polling", "blocking", "naive" };
    for (int i = 0; i < 4; i++)
        if (!strcmp(s, names[i])) {
            *out = (weft_io_strategy)i;
            return 0;
        }
    return WEFT_EINVAL;
}

static void read_env(void)
{
    const char *s = getenv("WEFT_IO_STRATEGY");
    weft_io_strategy st;
    if (s && *s) {
        if (parse_strategy(s, &st) == 0)
            strategy = st;
        else
            fprintf(stderr, "weft: WEFT_IO_STRATEGY=\"%s\" is invalid (expected "
                            "adaptive, polling, blocking or naive); using adaptive\n", s);
    }
    s = getenv("WEFT_IO_STATS");
    if (s && !strcmp(s, "1")) {
        wf_io_stats_on = 1;
        atexit(wf_io_stats_at_exit);
    }
}

static void init_once_fn(void)
{
    read_env();
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

weft_io_strategy wf_io_strategy(void)
{
    return (weft_io_strategy)__atomic_load_n(&strategy, __ATOMIC_RELAXED);
}

int weft_io_set_strategy(weft_io_strategy s)
{
    if (s < WEFT_IO_ADAPTIVE || s > WEFT_IO_NAIVE)
        return WEFT_EINVAL;
    wf_io_init();
    __atomic_store_n(&strategy, (int)s, __ATOMIC_SEQ_CST);
    return 0;
}

weft_io_strategy weft_io_get_strategy(void)
{
    wf_io_init();
    return wf_io_strategy();
}

/* ------------------------------------------------------- registration */

static void registry_add(weft_io_t h)
{
    wf_lock(&wf_io_reg_lock);
    h->reg_next = wf_io_registry;
    wf_io_registry = h;
    wf_unlock(&wf_io_reg_lock);
}

static void registry_remove(weft_io_t h)
{
    wf_lock(&wf_io_reg_lock);
    for (weft_io_t *pp = &wf_io_registry; *pp; pp = &(*pp)->reg_next)
        if (*pp == h) {
            *pp = h->reg_next;
            break;
        }
    wf_unlock(&wf_io_reg_lock);
}

/* A class's pollfd goes into the poll set; without one, a block()
 * callback gets a blocker thread; with neither, the class is polled. The
 * handle is registered first: the set drops events of handles it does
 * not find in the registry, and one dropped here would leave the fd
 * disarmed for good. */
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
    registry_add(h);
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
    while (h->head) {
        wf_io_req *r = h->head;
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
    registry_remove(h);
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

void wf_io_enter_user(weft_io_t h)
{
    __atomic_fetch_add(&h->users, 1, __ATOMIC_ACQ_REL);
}

void wf_io_leave_user(weft_io_t h)
{
    __atomic_fetch_sub(&h->users, 1, __ATOMIC_RELEASE);
}

/* ------------------------------------------------ callbacks' helpers */

weft_io_t wf_io_set_current(weft_io_t h)
{
    weft_io_t prev = current;
    current = h;
    return prev;
}

weft_io_t weft_io_current(void)
{
    return current;
}

int wf_io_set_idle_polling(int on)
{
    int prev = idle_polling;
    idle_polling = on;
    return prev;
}

int weft_io_idle_poll(void)
{
    return idle_polling;
}

void *weft_io_request_first(weft_io_t h)
{
    return h ? (void *)h->head : NULL;
}

void *weft_io_request_next(weft_io_t h, void *it)
{
    (void)h;
    return it ? (void *)((wf_io_req *)it)->next : NULL;
}

void *weft_io_request_arg(void *it)
{
    return it ? ((wf_io_req *)it)->arg : NULL;
}
