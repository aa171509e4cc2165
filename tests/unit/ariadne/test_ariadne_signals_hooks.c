/* Code written against the paper's interface compiles and runs with
 * <weft/ariadne.h>: signal-activated threads (a_setsig, a_waitsig,
 * a_raisesig, a_clearsig), pre/post-execution actions (a_setschdf,
 * a_setdschdf, with the paper's casts) and time slices (a_defslice,
 * a_clearslice, a_initslice). The timed events (a_sleep, a_schevnt...)
 * are in test_ariadne_events.c.
 *
 * One worker and no preemption, so every switch is one the test makes and
 * the hook counts are exact.
 */
#include "test_support.h"

#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <weft.h>
#include <weft/ariadne.h>

#define NYIELDS 5

/* ------------------------------------------------ signal-activated threads */

static atomic_int activations;

/* A SIGIO-activated receive thread, as in the paper: it sleeps until the
 * signal, then polls its (here imaginary) socket. */
static void *receive_thread(void *arg)
{
    (void)arg;
    a_waitsig(SIGIO);
    atomic_fetch_add(&activations, 1);
    return NULL;
}

static void test_signal_activated_threads(void **state)
{
    (void)state;
    weft_thread_t t[3];
    a_setsig(SIGIO);
    for (int i = 0; i < 3; i++)
        assert_int_equal(weft_thread_create(&t[i], NULL, receive_thread, NULL), 0);
    while (weft_sig_waiters(SIGIO) < 3)
        weft_thread_yield();
    a_raisesig(SIGIO); /* ARIADNE semantics: every waiter wakes */
    for (int i = 0; i < 3; i++)
        assert_int_equal(weft_thread_join(t[i], NULL), 0);
    assert_int_equal(atomic_load(&activations), 3);
    a_clearsig(SIGIO);
    assert_int_equal(weft_sig_raise(SIGIO), WEFT_EINVAL); /* cleared */
}

/* ------------------------------------------------ pre/post-exec actions */

static int pre_runs, post_runs, bad_arg;
static int pre_cookie, post_cookie;
static int stop_partner;

static void pre_exec(void *p)
{
    if (p != &pre_cookie)
        bad_arg++;
    pre_runs++;
}

static void post_exec(void *p)
{
    if (p != &post_cookie)
        bad_arg++;
    post_runs++;
}

static void *partner(void *arg)
{
    (void)arg;
    while (!__atomic_load_n(&stop_partner, __ATOMIC_ACQUIRE))
        weft_thread_yield();
    return NULL;
}

static void *yielder(void *arg)
{
    (void)arg;
    for (int i = 0; i < NYIELDS; i++)
        weft_thread_yield();
    __atomic_store_n(&stop_partner, 1, __ATOMIC_RELEASE);
    return NULL;
}

static void test_pre_and_post_exec_actions(void **state)
{
    (void)state;
    weft_thread_t p, t;
    void (*f)(void *) = pre_exec, (*g)(void *) = post_exec;
    assert_int_equal(weft_thread_set_priority(weft_thread_self(), WEFT_PRIO_MAX), 0);
    assert_int_equal(weft_thread_create(&p, NULL, partner, NULL), 0);
    assert_int_equal(weft_thread_create(&t, NULL, yielder, NULL), 0);
    /* The paper's calls, with its casts. */
    a_setschdf((struct tca *)t, (void (*)(void *))f, (void *)&pre_cookie);
    a_setdschdf((struct tca *)t, (void (*)(void *))g, (void *)&post_cookie);
    assert_int_equal(weft_thread_set_priority(weft_thread_self(), WEFT_PRIO_DEFAULT), 0);
    assert_int_equal(weft_thread_join(t, NULL), 0);
    assert_int_equal(weft_thread_join(p, NULL), 0);
    /* It ran NYIELDS + 1 times, stopping after each. */
    assert_int_equal(pre_runs, NYIELDS + 1);
    assert_int_equal(post_runs, NYIELDS + 1);
    assert_int_equal(bad_arg, 0);
}

/* ------------------------------------------------------------ time slices */

static void expect_sliced(int want)
{
    for (int l = WEFT_PRIO_MIN; l <= WEFT_PRIO_MAX; l++)
        assert_int_equal(weft_prio_is_sliced(l), want);
}

static void test_time_slices(void **state)
{
    (void)state;
    a_defslice(REAL, ALL, 0, 20000); /* 20 ms at every level */
    expect_sliced(1);
    a_clearslice();
    expect_sliced(0);
    a_defslice(EXEC, 3, 0, 5000); /* level 3 only, 5 ms */
    for (int l = WEFT_PRIO_MIN; l <= WEFT_PRIO_MAX; l++)
        assert_int_equal(weft_prio_is_sliced(l), l == 3);
    a_defslice(REAL, 8, 1, 0); /* ARIADNE's top level 8 is Weft's 7 */
    assert_int_equal(weft_prio_is_sliced(WEFT_PRIO_MAX), 1);
    a_initslice();
    expect_sliced(1);
    assert_int_equal(weft_set_quantum(0), 0); /* back to the group's setting */
}

static int setup(void **state)
{
    setenv("WEFT_WORKERS", "1", 1);
    if (wt_runtime_setup(state) != 0)
        return -1;
    return weft_set_quantum(0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_signal_activated_threads),
        cmocka_unit_test(test_pre_and_post_exec_actions),
        cmocka_unit_test(test_time_slices),
    };
    return cmocka_run_group_tests(tests, setup, wt_runtime_teardown);
}
