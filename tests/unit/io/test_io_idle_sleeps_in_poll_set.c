/* An idle worker sleeps in the I/O server's poll set (the last step of
 * the idle policy): the event on a class's pollfd wakes that worker, which
 * detects it itself - no server thread: the class's poll() that finds the
 * request runs on the worker, and the detection counts as "block"; the
 * scheduler pulls the worker out when it has work for it (a semaphore
 * posted by a plain pthread); a timer falls due while it sleeps there;
 * and unregistering the class meanwhile cancels the waiter.
 *
 * One worker (WEFT_WORKERS=1), adaptive strategy. The class's request is
 * "its pipe is readable", and the pipe is its pollfd. main joins a ULT, so
 * the only worker goes idle, spins for its budget and then sleeps in the
 * set; a plain pthread (the actor) waits until the server reports a worker
 * asleep there (io/io.h's wf_io_set_sleeper) before it acts.
 */
#include "test_support.h"

#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <unistd.h>
#include <weft.h>

#include "io/io.h"

#define HANG_GUARD_NS 20000000000LL

static int pfd[2];
static atomic_int found_on_worker, found_elsewhere, saw_worker_asleep, flag;
static weft_io_t h;
static weft_sem_t sem;

static int poll_pipe(void *ctx)
{
    (void)ctx;
    struct pollfd p = { .fd = pfd[0], .events = POLLIN };
    if (poll(&p, 1, 0) != 1)
        return -1;
    atomic_fetch_add(weft_worker_id() >= 0 ? &found_on_worker : &found_elsewhere, 1);
    return 0;
}

static int pipe_fd(void *ctx)
{
    (void)ctx;
    return pfd[0];
}

static void *waiter(void *arg)
{
    (void)arg;
    return (void *)(intptr_t)weft_io_wait(h, NULL);
}

/* Until the only worker sleeps in the poll set (or the guard passes). */
static void wait_for_worker_in_set(void)
{
    int64_t guard = wt_now_ns() + HANG_GUARD_NS;
    while (wf_io_set_sleeper() != 0 && wt_now_ns() < guard)
        usleep(200);
    atomic_store(&saw_worker_asleep, wf_io_set_sleeper() == 0);
}

static void until_flag(void)
{
    int64_t guard = wt_now_ns() + HANG_GUARD_NS;
    while (!atomic_load(&flag) && wt_now_ns() < guard)
        usleep(200);
}

static void *actor_event(void *arg)
{
    (void)arg;
    wait_for_worker_in_set();
    assert_int_equal(write(pfd[1], "x", 1), 1);
    return NULL;
}

static void *actor_post_then_event(void *arg)
{
    (void)arg;
    wait_for_worker_in_set();
    weft_sem_post(&sem);
    until_flag();
    assert_int_equal(write(pfd[1], "x", 1), 1);
    return NULL;
}

static void *actor_event_after_flag(void *arg)
{
    (void)arg;
    until_flag();
    assert_int_equal(write(pfd[1], "x", 1), 1);
    return NULL;
}

static void *actor_unregister(void *arg)
{
    (void)arg;
    wait_for_worker_in_set();
    assert_int_equal(weft_io_unregister(h), 0);
    return NULL;
}

static void *sem_taker(void *arg)
{
    (void)arg;
    weft_sem_wait(&sem);
    atomic_store(&flag, 1);
    return NULL;
}

static void *sleeper(void *arg)
{
    (void)arg;
    weft_sleep_until(weft_now() + 30 * 1000 * 1000);
    atomic_store(&flag, 1);
    return NULL;
}

static int setup(void **state)
{
    if (wt_one_worker_setup(state) != 0)
        return -1;
    return weft_io_set_strategy(WEFT_IO_ADAPTIVE);
}

static void open_class(void)
{
    atomic_store(&found_on_worker, 0);
    atomic_store(&found_elsewhere, 0);
    atomic_store(&saw_worker_asleep, 0);
    atomic_store(&flag, 0);
    assert_int_equal(pipe(pfd), 0);
    weft_io_params p = { .name = "pipe", .poll = poll_pipe, .pollfd = pipe_fd };
    assert_non_null(h = weft_io_register(&p));
}

static void close_class(int unregister)
{
    char c;
    if (unregister) {
        assert_int_equal(read(pfd[0], &c, 1), 1);
        assert_int_equal(weft_io_unregister(h), 0);
    }
    close(pfd[0]);
    close(pfd[1]);
}

/* Run a waiter, a second ULT `other` (main joins it first, if given) and
 * a plain pthread `actor`; the waiter's wait must end with `expect`. */
static void run(void *(*other)(void *), void *(*actor)(void *), intptr_t expect)
{
    weft_thread_t w, o;
    pthread_t a;
    void *rc;
    assert_int_equal(weft_thread_create(&w, NULL, waiter, NULL), 0);
    if (other)
        assert_int_equal(weft_thread_create(&o, NULL, other, NULL), 0);
    assert_int_equal(pthread_create(&a, NULL, actor, NULL), 0);
    if (other)
        assert_int_equal(weft_thread_join(o, NULL), 0);
    assert_int_equal(weft_thread_join(w, &rc), 0);
    assert_int_equal((intptr_t)rc, expect);
    assert_int_equal(pthread_join(a, NULL), 0);
}

static void test_event_wakes_the_worker_in_the_set(void **state)
{
    (void)state;
    weft_io_stats st;
    open_class();
    run(NULL, actor_event, 0);
    assert_true(atomic_load(&saw_worker_asleep));
    assert_int_equal(atomic_load(&found_on_worker), 1);
    assert_int_equal(atomic_load(&found_elsewhere), 0);
    assert_int_equal(weft_io_get_stats(h, &st), 0);
    assert_int_equal(st.detected_block, 1);
    close_class(1);
}

static void test_work_pulls_the_worker_out(void **state)
{
    (void)state;
    assert_int_equal(weft_sem_init(&sem, 0), 0);
    open_class();
    run(sem_taker, actor_post_then_event, 0);
    assert_true(atomic_load(&saw_worker_asleep));
    assert_int_equal(atomic_load(&flag), 1);
    assert_int_equal(weft_sem_destroy(&sem), 0);
    close_class(1);
}

static void test_timer_due_meanwhile(void **state)
{
    (void)state;
    open_class();
    run(sleeper, actor_event_after_flag, 0);
    assert_int_equal(atomic_load(&flag), 1);
    close_class(1);
}

static void test_unregister_cancels_the_wait(void **state)
{
    (void)state;
    open_class();
    run(NULL, actor_unregister, WEFT_ECANCELED);
    assert_true(atomic_load(&saw_worker_asleep));
    close_class(0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_event_wakes_the_worker_in_the_set),
        cmocka_unit_test(test_work_pulls_the_worker_out),
        cmocka_unit_test(test_timer_due_meanwhile),
        cmocka_unit_test(test_unregister_cancels_the_wait),
    };
    return cmocka_run_group_tests(tests, setup, wt_runtime_teardown);
}
