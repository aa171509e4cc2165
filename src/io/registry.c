/* The I/O server's registry: the list of event classes, the detection
 * strategy, the "current handle" of callbacks and the idle-poll flag, and
 * the request iteration behind WEFT_IO_FOR_EACH_REQUEST. (Registering and
 * unregistering a class is class.c's.)
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
 * WEFT_IO_STRATEGY (adaptive, the default | polling | blocking | naive)
 * is read once, at the first use of the server.
 *
 * The current handle (weft_io_current) and the idle-poll flag are per
 * kernel thread: callbacks run inside a critical section (or on a server
 * kernel thread), so the ULT that set them cannot migrate meanwhile.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/io.h"

int wf_io_reg_lock;
struct weft_io *wf_io_registry;
int wf_io_nwaiting;
int wf_io_nblocked;

static int strategy = WEFT_IO_ADAPTIVE;
static __thread weft_io_t current;
static __thread int idle_polling;

/* ----------------------------------------------------------- strategy */

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

void wf_io_strategy_from_env(void)
{
    const char *s = getenv("WEFT_IO_STRATEGY");
    weft_io_strategy st;
    if (!s || !*s)
        return;
    if (parse_strategy(s, &st) == 0)
        strategy = st;
    else
        fprintf(stderr, "weft: WEFT_IO_STRATEGY=\"%s\" is invalid (expected "
                        "adaptive, polling, blocking or naive); using adaptive\n", s);
}

weft_io_strategy wf_io_strategy(void)
{
    return (weft_io_strategy)__atomic_load_n(&strategy, __ATOMIC_RELAXED);
}

void wf_io_strategy_set(weft_io_strategy s)
{
    __atomic_store_n(&strategy, (int)s, __ATOMIC_SEQ_CST);
}

/* ---------------------------------------------------------- the list */

void wf_io_registry_add(weft_io_t h)
{
    wf_lock(&wf_io_reg_lock);
    h->reg_next = wf_io_registry;
    wf_io_registry = h;
    wf_unlock(&wf_io_reg_lock);
}

void wf_io_registry_remove(weft_io_t h)
{
    wf_lock(&wf_io_reg_lock);
    for (weft_io_t *pp = &wf_io_registry; *pp; pp = &(*pp)->reg_next)
        if (*pp == h) {
            *pp = h->reg_next;
            break;
        }
    wf_unlock(&wf_io_reg_lock);
}

int wf_io_registered(weft_io_t h)
{
    for (weft_io_t r = wf_io_registry; r; r = r->reg_next)
        if (r == h)
            return 1;
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
    return h ? (void *)h->waiting.head : NULL;
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
