/* Runtime start-up and shut-down, configuration from the environment, and
 * the scheduler's statistics.
 *
 * weft_init() turns the calling kernel thread into worker 0 and the caller
 * into the "main" ULT (id 1), running on its own original stack; the other
 * workers start as pthreads. The main thread is bound to worker 0: it never
 * migrates, so code in main that keeps per-kernel-thread state (__thread
 * variables of libraries such as test frameworks, pthread_self()) keeps
 * working, and weft_fini() returns on the original kernel thread. Other
 * ULTs migrate freely. weft_fini() must be called by the main thread once
 * every other ULT is gone; it stops and frees the workers.
 *
 * Environment (read once, by weft_init):
 *   WEFT_WORKERS     number of workers, 1..1024 (default: one per core)
 *   WEFT_QUANTUM_US  default time slice in microseconds, 0 = no preemption
 *   WEFT_STACK_SIZE  default stack size in bytes (stack.c)
 *   WEFT_BIND        core (pin workers to cores, default) or none
 *   WEFT_DISABLE     heuristics to turn off, for A/B measurements
 *                    (util/tuning.h)
 * A malformed value is an error (WEFT_EINVAL) with a message naming it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched/sched_internal.h"
#include "util/tuning.h"

wf_sched wf_g = {
    .quantum_ns = 10 * 1000 * 1000,
    .prio_sliced = { 1, 1, 1, 1, 1, 1, 1, 1 },
    .bind_workers = 1,
    .next_id = 2,
};

void wf_fatal(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("weft: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    abort();
}

/* Parse integer variable `name` into *out; 0 if unset (out untouched),
 * 1 if set, WEFT_EINVAL (with a message) if malformed or out of range. */
int wf_env_long(const char *name, long min, long max, long *out)
{
    const char *s = getenv(name);
    if (!s || !*s)
        return 0;
    char *end;
    long v = strtol(s, &end, 10);
    if (*end || v < min || v > max) {
        fprintf(stderr, "weft: %s=\"%s\" is invalid (expected an integer from %ld to %ld)\n",
                name, s, min, max);
        return WEFT_EINVAL;
    }
    *out = v;
    return 1;
}

static int bind_default = 1; /* atomic: weft_set_worker_binding */

void weft_set_worker_binding(int bind)
{
    __atomic_store_n(&bind_default, bind != 0, __ATOMIC_RELAXED);
}

static int read_bind_env(void)
{
    const char *s = getenv("WEFT_BIND");
    if (!s || !*s)
        wf_g.bind_workers = __atomic_load_n(&bind_default, __ATOMIC_RELAXED);
    else if (!strcmp(s, "core"))
        wf_g.bind_workers = 1;
    else if (!strcmp(s, "none"))
        wf_g.bind_workers = 0;
    else {
        fprintf(stderr, "weft: WEFT_BIND=\"%s\" is invalid (expected core or none)\n", s);
        return WEFT_EINVAL;
    }
    return 0;
}

static int read_config(int *nworkers)
{
    long workers = wf_topology_default_workers(), quantum_us;
    int err = wf_env_long("WEFT_WORKERS", 1, 1024, &workers);
    if (err < 0)
        return err;
    err = wf_env_long("WEFT_QUANTUM_US", 0, 10 * 1000 * 1000, &quantum_us);
    if (err < 0 || (err > 0 && quantum_us > 0 && quantum_us < 10)) {
        if (err > 0)
            fprintf(stderr, "weft: WEFT_QUANTUM_US must be 0 or at least 10\n");
        return WEFT_EINVAL;
    }
    if (err > 0)
        wf_g.quantum_ns = quantum_us * 1000;
    *nworkers = (int)workers;
    if ((err = wf_tuning_init()) != 0)
        return err;
    return read_bind_env();
}

static int start_runtime(int nworkers)
{
    int err = wf_workers_start(nworkers);
    if (err)
        return err;
    wf_g.main_thread = wf_thread_new_main();
    if (!wf_g.main_thread)
        wf_fatal("sched: out of memory creating the main thread");
    wf_worker *w0 = wf_g.workers[0];
    wf_g.main_stack_lo = w0->boot_lo;
    wf_g.main_stack_size = w0->boot_size;
    wf_g.main_thread->last_worker = 0;
    wf_g.main_thread->bound_worker = 0;
    wf_set_running(w0, wf_g.main_thread);
    w0->ticks_left = wf_slice_ticks(WEFT_PRIO_DEFAULT);
    return 0;
}

static int init_locked(void);

/* In a child of fork() only the forking thread exists: the workers, their
 * timers and every other ULT are gone. Forget them (their memory is
 * abandoned) so that the child sees an uninitialised runtime and may call
 * weft_init() again, or simply exec. */
static void forget_runtime_in_child(void)
{
    if (!wf_g.initialized)
        return;
    wf_worker_set_self(NULL);
    wf_g.initialized = 0;
    wf_g.workers = NULL;
    wf_g.nworkers = 0;
    wf_g.main_thread = NULL;
    wf_g.nready = wf_g.nready_bound = wf_g.nsleeping = wf_g.nthreads = 0;
    wf_g.shutdown = 0;
    wf_topology_forget();
    wf_thread_registry_forget();
}

static void register_fork_handler(void)
{
    pthread_atfork(NULL, NULL, forget_runtime_in_child);
}

static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t fork_once = PTHREAD_ONCE_INIT;

int weft_init(void)
{
    if (__atomic_load_n(&wf_g.initialized, __ATOMIC_ACQUIRE))
        return 0;
    pthread_once(&fork_once, register_fork_handler);
    pthread_mutex_lock(&init_lock);
    int err = wf_g.initialized ? 0 : init_locked();
    pthread_mutex_unlock(&init_lock);
    return err;
}

static int init_locked(void)
{
    int nworkers, err = wf_topology_init();
    if (err || (err = read_config(&nworkers)) != 0)
        return err;
    wf_safepc_init();
    if ((err = wf_preempt_install()) != 0)
        return err;
    if ((err = wf_overflow_install()) != 0)
        goto fail_overflow;
    if ((err = start_runtime(nworkers)) != 0)
        goto fail_start;
    wf_g.init_pthread = pthread_self();
    __atomic_store_n(&wf_g.shutdown, 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&wf_g.initialized, 1, __ATOMIC_RELEASE);
    wf_timer_arm(wf_g.workers[0]);
    return 0;
fail_start:
    wf_overflow_uninstall();
fail_overflow:
    wf_preempt_uninstall();
    return err;
}

int weft_fini(void)
{
    if (!wf_g.initialized)
        return WEFT_ESTATE;
    wf_thread *self = wf_self();
    if (!self || self != wf_g.main_thread)
        return WEFT_EPERM;
    if (wf_hooks_at_fini() != 0)
        return WEFT_EBUSY;
    if (__atomic_load_n(&wf_g.nthreads, __ATOMIC_SEQ_CST) != 0)
        return WEFT_EBUSY;
    wf_rt_enter();
    wf_workers_stop();
    wf_overflow_uninstall();
    wf_preempt_uninstall();
    wf_thread_free(self);
    wf_g.main_thread = NULL;
    wf_stack_pool_drain();
    wf_topology_fini();
    wf_g.initialized = 0;
    return 0;
}

int weft_is_initialized(void)
{
    return wf_g.initialized;
}

int weft_num_workers(void)
{
    return wf_g.initialized ? wf_g.nworkers : 0;
}

int weft_worker_id(void)
{
    wf_worker *w = wf_worker_self();
    return w ? w->index : -1;
}

int weft_sched_get_stats(weft_sched_stats *st)
{
    if (!st)
        return WEFT_EINVAL;
    memset(st, 0, sizeof *st);
    for (int i = 0; i < wf_g.nworkers; i++) {
        weft_sched_stats *s = &wf_g.workers[i]->stats;
        st->switches += __atomic_load_n(&s->switches, __ATOMIC_RELAXED);
        st->preemptions += __atomic_load_n(&s->preemptions, __ATOMIC_RELAXED);
        st->deferred += __atomic_load_n(&s->deferred, __ATOMIC_RELAXED);
        st->steals += __atomic_load_n(&s->steals, __ATOMIC_RELAXED);
        st->idle_sleeps += __atomic_load_n(&s->idle_sleeps, __ATOMIC_RELAXED);
        st->server_yields += __atomic_load_n(&s->server_yields, __ATOMIC_RELAXED);
    }
    return 0;
}
