/* The server threads' weight (sched/kernel.c): a blocker kernel thread
 * runs 10 below the process's nice value where
 * the process may raise a priority, and at the process's nice where it may
 * not; WEFT_DISABLE=server-nice leaves it at the process's nice; an
 * unknown name in WEFT_DISABLE makes weft_init fail with WEFT_EINVAL. Whether this process may
 * raise a priority (root, CAP_SYS_NICE, RLIMIT_NICE) is probed the same
 * way: a scratch pthread tries it on itself. The blocking strategy makes
 * every wait engage the blocker, so the test knows when it has started.
 */
#include "test_support.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <weft.h>

#define CLASS_NAME "nice"
#define BLOCKER_COMM "weft-blk-nice"

static int never_ready(void *ctx)
{
    (void)ctx;
    return -1;
}

static atomic_int blocked; /* the blocker ran block(): past its set-up */

static int sleep_a_while(void *ctx, int timeout_ms)
{
    (void)ctx;
    (void)timeout_ms;
    atomic_store(&blocked, 1);
    usleep(1000);
    return -1;
}

static int process_nice(void)
{
    return getpriority(PRIO_PROCESS, (id_t)getpid());
}

static void *try_raise(void *arg)
{
    int *want = arg;
    *want = setpriority(PRIO_PROCESS, 0, *want) == 0;
    return NULL;
}

/* Whether a thread of this process may take nice value `want`. */
static int may_take(int want)
{
    pthread_t t;
    int arg = want;
    assert_int_equal(pthread_create(&t, NULL, try_raise, &arg), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
    return arg;
}

/* The nice value of this process's thread named `comm`, or -100. */
static int nice_of_thread(const char *comm)
{
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    int found = -100;
    assert_non_null(d);
    while (found == -100 && (e = readdir(d)) != NULL) {
        char path[300], name[32] = "";
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        if (fgets(name, sizeof name, f))
            name[strcspn(name, "\n")] = '\0';
        fclose(f);
        if (strcmp(name, comm) == 0) {
            errno = 0;
            found = getpriority(PRIO_PROCESS, (id_t)atoi(e->d_name));
            assert_int_equal(errno, 0);
        }
    }
    closedir(d);
    return found;
}

/* Start the runtime, register a class with a blocker, wait on it until
 * the blocker has run block() (so it has set its nice: it does so before
 * its first round), return the blocker's nice value, and tear everything
 * down again. */
static int blocker_nice(void)
{
    weft_io_params p = { 0 };
    p.name = CLASS_NAME;
    p.poll = never_ready;
    p.block = sleep_a_while;
    assert_int_equal(weft_init(), 0);
    weft_io_t h = weft_io_register(&p);
    assert_non_null(h);
    atomic_store(&blocked, 0);
    for (int i = 0; i < 200 && !atomic_load(&blocked); i++)
        assert_int_equal(weft_io_wait_until(h, NULL, weft_now() + 10 * 1000 * 1000),
                         WEFT_ETIMEDOUT);
    assert_true(atomic_load(&blocked));
    int nice = nice_of_thread(BLOCKER_COMM);
    assert_int_equal(weft_io_unregister(h), 0);
    assert_int_equal(weft_fini(), 0);
    return nice;
}

static void a_malformed_value_is_refused(void **state)
{
    (void)state;
    setenv("WEFT_DISABLE", "server-niceness", 1);
    assert_int_equal(weft_init(), WEFT_EINVAL);
    setenv("WEFT_DISABLE", "server-nice,nope", 1);
    assert_int_equal(weft_init(), WEFT_EINVAL);
    unsetenv("WEFT_DISABLE");
}

static void the_blocker_runs_ten_below_where_allowed(void **state)
{
    (void)state;
    int base = process_nice();
    int want = base - 10 < -20 ? -20 : base - 10;
    int expected = may_take(want) ? want : base;
    unsetenv("WEFT_DISABLE");
    assert_int_equal(blocker_nice(), expected);
}

static void disabling_it_leaves_the_process_nice(void **state)
{
    (void)state;
    setenv("WEFT_DISABLE", "server-nice", 1);
    assert_int_equal(blocker_nice(), process_nice());
    unsetenv("WEFT_DISABLE");
}

int main(void)
{
    setenv("WEFT_IO_STRATEGY", "blocking", 1); /* every wait engages the blocker */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_malformed_value_is_refused),
        cmocka_unit_test(the_blocker_runs_ten_below_where_allowed),
        cmocka_unit_test(disabling_it_leaves_the_process_nice),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
