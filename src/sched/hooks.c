/* The hooks through which upper layers (timers, signals, continuations,
 * the I/O server) run at the scheduler's safe points: every switch, and
 * an idle worker's polls and sleep deadline. (The I/O server's poll,
 * where an idle worker also sleeps, has a slot of its own: worker.c.)
 *
 * A small fixed table, written rarely (registration) and read on every
 * switch. Readers take no lock: they read `count` (acquire) and the slots
 * below it, each an atomic pointer; a registration fills a slot before it
 * publishes the count. Removal empties the slot rather than moving the
 * others, because idle workers still run the hooks while weft_fini
 * removes them: a reader sees each set either whole or not at all. With
 * no hooks registered the cost per switch is one load and a branch.
 */
#include "sched/sched_internal.h"

#define MAX_HOOK_SETS 8

static const wf_sched_hooks *table[MAX_HOOK_SETS]; /* atomic; NULL: free */
static int count;                                   /* atomic: slots in use */
static int lock;

static const wf_sched_hooks *slot(int i)
{
    return __atomic_load_n(&table[i], __ATOMIC_ACQUIRE);
}

int wf_sched_add_hooks(const wf_sched_hooks *h)
{
    int err = 0;
    wf_lock(&lock);
    int i = 0;
    while (i < count && slot(i))
        i++;
    if (i == MAX_HOOK_SETS) {
        err = WEFT_EAGAIN;
    } else {
        __atomic_store_n(&table[i], h, __ATOMIC_RELEASE);
        if (i == count)
            __atomic_store_n(&count, count + 1, __ATOMIC_RELEASE);
    }
    wf_unlock(&lock);
    return err;
}

void wf_sched_remove_hooks(const wf_sched_hooks *h)
{
    wf_lock(&lock);
    for (int i = 0; i < count; i++)
        if (slot(i) == h)
            __atomic_store_n(&table[i], NULL, __ATOMIC_RELEASE);
    int n = count;
    while (n > 0 && !slot(n - 1))
        n--;
    __atomic_store_n(&count, n, __ATOMIC_RELEASE);
    wf_unlock(&lock);
}

void wf_hooks_at_switch(void)
{
    int n = __atomic_load_n(&count, __ATOMIC_ACQUIRE);
    for (int i = 0; i < n; i++) {
        const wf_sched_hooks *h = slot(i);
        if (h && h->at_switch)
            h->at_switch();
    }
}

void wf_hooks_at_tick(void)
{
    int n = __atomic_load_n(&count, __ATOMIC_ACQUIRE);
    for (int i = 0; i < n; i++) {
        const wf_sched_hooks *h = slot(i);
        if (h && h->at_tick)
            h->at_tick();
    }
}

int wf_hooks_idle_poll(void)
{
    int n = __atomic_load_n(&count, __ATOMIC_ACQUIRE), found = 0;
    for (int i = 0; i < n; i++) {
        const wf_sched_hooks *h = slot(i);
        if (h && h->idle_poll)
            found += h->idle_poll() > 0;
    }
    return found;
}

int64_t wf_hooks_idle_deadline(void)
{
    int n = __atomic_load_n(&count, __ATOMIC_ACQUIRE);
    int64_t earliest = -1;
    for (int i = 0; i < n; i++) {
        const wf_sched_hooks *h = slot(i);
        if (!h || !h->idle_deadline)
            continue;
        int64_t d = h->idle_deadline();
        if (d >= 0 && (earliest < 0 || d < earliest))
            earliest = d;
    }
    return earliest;
}

/* ------------------------------------------------------ weft_fini hooks */

static int (*fini_table[MAX_HOOK_SETS])(void);
static int fini_count;

int wf_sched_add_fini_hook(int (*fn)(void))
{
    int err = 0;
    wf_lock(&lock);
    int i = 0;
    while (i < fini_count && fini_table[i] != fn)
        i++;
    if (i == MAX_HOOK_SETS)
        err = WEFT_EAGAIN;
    else if (i == fini_count)
        fini_table[fini_count++] = fn;
    wf_unlock(&lock);
    return err;
}

void wf_sched_remove_fini_hook(int (*fn)(void))
{
    wf_lock(&lock);
    for (int i = 0; i < fini_count; i++) {
        if (fini_table[i] != fn)
            continue;
        for (int j = i; j + 1 < fini_count; j++)
            fini_table[j] = fini_table[j + 1];
        fini_count--;
        break;
    }
    wf_unlock(&lock);
}

/* A hook may remove itself (and others) while stopping: run a snapshot. */
int wf_hooks_at_fini(void)
{
    int (*snap[MAX_HOOK_SETS])(void);
    wf_lock(&lock);
    int n = fini_count;
    for (int i = 0; i < n; i++)
        snap[i] = fini_table[i];
    wf_unlock(&lock);
    for (int i = 0; i < n; i++)
        if (snap[i]() != 0)
            return WEFT_EBUSY;
    return 0;
}
