/* weft_cont_post: when and where a continuation runs.
 *
 * On one worker with preemption off (every switch is one the test makes):
 * a posted continuation has not run when weft_cont_post returns; it runs
 * at the poster's next switch, before the thread switched to continues,
 * on that thread's stack (weft_thread_self() is the resumed thread), with
 * no switch of its own; several run in posting order; one posted from
 * inside a continuation runs at the following switch, not in the same
 * batch; a continuation posted just before the poster blocks runs too.
 * Misuse: NULL fn gives WEFT_EINVAL, an external thread WEFT_EPERM.
 */
#include "test_support.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <weft.h>

#define LOG_MAX 64

static char order_log[LOG_MAX + 1];
static int log_len;
static weft_thread_t ran_on;       /* weft_thread_self() inside a continuation */
static weft_thread_t partner_self; /* the partner thread */
static int partner_stop;

static void log_char(char c)
{
    if (log_len < LOG_MAX)
        order_log[log_len++] = c;
}

static void note(void *arg)
{
    log_char(*(const char *)arg);
    ran_on = weft_thread_self();
}

static int setup(void **state)
{
    setenv("WEFT_WORKERS", "1", 1);
    if (wt_runtime_setup(state) != 0)
        return -1;
    return weft_set_quantum(0);
}

static void reset(void)
{
    memset(order_log, 0, sizeof order_log);
    log_len = 0;
    ran_on = WEFT_THREAD_NULL;
    partner_stop = 0;
}

/* The other runnable thread on the worker: logs 'P' each time it runs. */
static void *partner(void *arg)
{
    (void)arg;
    partner_self = weft_thread_self();
    while (!__atomic_load_n(&partner_stop, __ATOMIC_ACQUIRE)) {
        log_char('P');
        weft_thread_yield();
    }
    return NULL;
}

static weft_thread_t start_partner(void)
{
    weft_thread_t t;
    assert_int_equal(weft_thread_create(&t, NULL, partner, NULL), 0);
    weft_thread_yield(); /* let it start: it logs 'P' and yields back */
    return t;
}

static void stop_partner(weft_thread_t t)
{
    __atomic_store_n(&partner_stop, 1, __ATOMIC_RELEASE);
    assert_int_equal(weft_thread_join(t, NULL), 0);
}

static void test_runs_at_next_switch_on_resumed_stack(void **state)
{
    (void)state;
    static const char a = 'a';
    reset();
    weft_thread_t p = start_partner();
    assert_int_equal(weft_cont_post(note, (void *)&a), 0);
    log_char('m');                     /* no switch yet: not run */
    weft_thread_yield();               /* switch to the partner */
    stop_partner(p);
    assert_true(strncmp(order_log, "Pma", 3) == 0);
    assert_ptr_equal(ran_on, partner_self);
}

static void test_posting_order(void **state)
{
    (void)state;
    static const char c[3] = {'x', 'y', 'z'};
    reset();
    weft_thread_t p = start_partner();
    for (int i = 0; i < 3; i++)
        assert_int_equal(weft_cont_post(note, (void *)&c[i]), 0);
    weft_thread_yield();
    stop_partner(p);
    assert_true(strncmp(order_log, "Pxyz", 4) == 0);
}

static void repost(void *arg)
{
    static const char inner = 'i';
    (void)arg;
    log_char('o');
    if (weft_cont_post(note, (void *)&inner) != 0)
        log_char('!');
}

static void test_nested_post_runs_at_following_switch(void **state)
{
    (void)state;
    reset();
    weft_thread_t p = start_partner();
    assert_int_equal(weft_cont_post(repost, NULL), 0);
    weft_thread_yield(); /* runs 'o' then the partner logs 'P' and yields */
    stop_partner(p);     /* that yield switched: 'i' ran there */
    assert_true(strncmp(order_log, "PoPi", 4) == 0);
    assert_null(strchr(order_log, '!'));
}

static weft_sem_t block_sem;

static void *post_then_block(void *arg)
{
    (void)arg;
    static const char b = 'b';
    if (weft_cont_post(note, (void *)&b) != 0)
        log_char('!');
    weft_sem_wait(&block_sem);
    return NULL;
}

static void test_runs_when_poster_blocks(void **state)
{
    (void)state;
    weft_thread_t t;
    reset();
    assert_int_equal(weft_sem_init(&block_sem, 0), 0);
    assert_int_equal(weft_thread_create(&t, NULL, post_then_block, NULL), 0);
    weft_thread_yield(); /* it runs, posts, blocks: we resume and run 'b' */
    assert_string_equal(order_log, "b");
    assert_ptr_equal(ran_on, weft_thread_self());
    assert_int_equal(weft_sem_post(&block_sem), 0);
    assert_int_equal(weft_thread_join(t, NULL), 0);
    assert_int_equal(weft_sem_destroy(&block_sem), 0);
}

static void *external_post(void *arg)
{
    *(int *)arg = weft_cont_post(note, NULL);
    return NULL;
}

static void test_misuse(void **state)
{
    (void)state;
    pthread_t pt;
    int rc = 0;
    assert_int_equal(weft_cont_post(NULL, NULL), WEFT_EINVAL);
    assert_int_equal(pthread_create(&pt, NULL, external_post, &rc), 0);
    assert_int_equal(pthread_join(pt, NULL), 0);
    assert_int_equal(rc, WEFT_EPERM);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_runs_at_next_switch_on_resumed_stack),
        cmocka_unit_test(test_posting_order),
        cmocka_unit_test(test_nested_post_runs_at_following_switch),
        cmocka_unit_test(test_runs_when_poster_blocks),
        cmocka_unit_test(test_misuse),
    };
    return cmocka_run_group_tests(tests, setup, wt_runtime_teardown);
}
