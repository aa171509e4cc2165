/* Per-handle statistics: waits, poll calls, detections by strategy,
 * time-outs and the latency histogram are counted as the waits happen -
 * a request ready at once counts as "immediate", one found later by
 * polling as "poll" (enhanced-polling strategy, so no blocker is
 * involved), one that gives up as a time-out - and weft_io_print_stats
 * prints them under the handle's name.
 */
#include "test_support.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>
#include <weft.h>

static atomic_int flag;

static int poll_flag(void *ctx)
{
    (void)ctx;
    return atomic_load(&flag) ? 0 : -1;
}

static void *set_later(void *arg)
{
    (void)arg;
    usleep(5000);
    atomic_store(&flag, 1);
    return NULL;
}

static uint64_t sum(const uint64_t *h, int n)
{
    uint64_t s = 0;
    for (int i = 0; i < n; i++)
        s += h[i];
    return s;
}

static void test_counters_and_print(void **state)
{
    (void)state;
    assert_int_equal(weft_io_set_strategy(WEFT_IO_POLLING), 0);
    weft_io_params p = { .name = "counted", .poll = poll_flag };
    weft_io_t h = weft_io_register(&p);
    assert_non_null(h);

    atomic_store(&flag, 1); /* ready at once */
    assert_int_equal(weft_io_wait(h, NULL), 0);
    atomic_store(&flag, 0); /* found by polling later */
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, set_later, NULL), 0);
    assert_int_equal(weft_io_wait(h, NULL), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
    atomic_store(&flag, 0); /* never ready: times out */
    assert_int_equal(weft_io_wait_until(h, NULL, wt_now_ns() + 5000000), WEFT_ETIMEDOUT);

    weft_io_stats st;
    assert_int_equal(weft_io_get_stats(h, &st), 0);
    assert_int_equal(st.waits, 3);
    assert_int_equal(st.detected_immediate, 1);
    assert_int_equal(st.detected_poll, 1);
    assert_int_equal(st.detected_block, 0);
    assert_int_equal(st.detected_signal, 0);
    assert_int_equal(st.timeouts, 1);
    assert_true(st.polls >= 3);
    assert_int_equal(sum(st.latency_hist, WEFT_IO_HIST_BUCKETS), 2);
    assert_int_equal(weft_io_get_stats(NULL, &st), WEFT_EINVAL);

    int fds[2];
    char out[4096] = "";
    assert_int_equal(pipe(fds), 0);
    assert_int_equal(weft_io_print_stats(fds[1]), 0);
    close(fds[1]);
    assert_true(read(fds[0], out, sizeof out - 1) > 0);
    close(fds[0]);
    assert_non_null(strstr(out, "\"counted\": waits 3"));
    assert_non_null(strstr(out, "latency"));
    assert_int_equal(weft_io_unregister(h), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counters_and_print),
    };
    return cmocka_run_group_tests(tests, wt_runtime_setup, wt_runtime_teardown);
}
