/* Thousands of threads each waiting on their own socket: every ULT blocks
 * in weft_read on one end of its own socketpair (main waits until all have
 * started, then sleeps 50 ms so that they are all parked in the wait);
 * main then writes one byte to each pair, in reverse order; every ULT gets
 * exactly its own byte and finishes. The socket count scales down to the
 * fd limit (the soft limit is first raised to the hard one): 2 fds per
 * pair, 64 kept for the rest.
 */
#include "test_support.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>
#include <weft.h>

#define WANT 2000
#define MIN_PAIRS 100

typedef struct pair {
    int sv[2];
    char got;
} pair;

static pair *pairs;
static atomic_int bad, started;

static int pair_budget(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return MIN_PAIRS;
    if (rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
        getrlimit(RLIMIT_NOFILE, &rl);
    }
    long n = ((long)rl.rlim_cur - 64) / 2;
    return n > WANT ? WANT : (int)n;
}

static void *reader(void *arg)
{
    pair *p = arg;
    atomic_fetch_add(&started, 1);
    if (weft_read(p->sv[0], &p->got, 1) != 1)
        atomic_fetch_add(&bad, 1);
    return NULL;
}

static void test_each_thread_gets_its_own_byte(void **state)
{
    (void)state;
    int n = pair_budget();
    assert_true(n >= MIN_PAIRS);
    assert_non_null(pairs = calloc((size_t)n, sizeof *pairs));
    weft_thread_t *t = calloc((size_t)n, sizeof *t);
    assert_non_null(t);
    for (int i = 0; i < n; i++) {
        assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, pairs[i].sv), 0);
        assert_int_equal(weft_thread_create(&t[i], NULL, reader, &pairs[i]), 0);
    }
    int64_t guard = wt_now_ns() + 20000000000LL;
    while (atomic_load(&started) < n && wt_now_ns() < guard)
        weft_sleep(1000 * 1000);
    assert_int_equal(atomic_load(&started), n);
    weft_sleep(50 * 1000 * 1000); /* let the last ones park */
    for (int i = n - 1; i >= 0; i--) {
        char c = (char)('a' + i % 26);
        assert_int_equal(weft_write(pairs[i].sv[1], &c, 1), 1);
    }
    for (int i = 0; i < n; i++) {
        assert_int_equal(weft_thread_join(t[i], NULL), 0);
        assert_int_equal(pairs[i].got, (char)('a' + i % 26));
        close(pairs[i].sv[0]);
        close(pairs[i].sv[1]);
    }
    assert_int_equal(atomic_load(&bad), 0);
    free(t);
    free(pairs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_thread_gets_its_own_byte),
    };
    return cmocka_run_group_tests(tests, wt_runtime_setup, wt_runtime_teardown);
}
