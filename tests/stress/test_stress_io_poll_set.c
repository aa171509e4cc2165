/* Stress: waits on an event class with a pollfd (the MPI engine's shape),
 * so that idle workers spin, sleep in the I/O server's poll set, leave it
 * to the server thread or hand it back, in every order the timing gives;
 * no wake-up may be lost on the way.
 *
 * Two workers, adaptive strategy, one then four ULT waiters. A plain
 * pthread (the producer) makes one event at a time: a token, then either a
 * write to the class's eventfd (its pollfd) or weft_io_kick (a completion
 * that does not show on the fd, as another thread's progress), as a
 * completion from outside the runtime does. Each token wakes one waiter,
 * and the producer makes the next one only when that one was taken, after
 * a pause that varies from none (the waiter is still spinning) to a
 * millisecond (every worker asleep). So a lost wake-up is not healed by a
 * later event: the token stays, and the producer reports it and fails the
 * test (after HANG_NS, far beyond any wake-up) instead of the test
 * hanging until its timeout.
 *
 * WEFT_STRESS_SCALE=<n> (n >= 1) divides the number of events, for slow
 * builds (sanitizers); the default run is the full one. */
#include "test_support.h"

#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <weft.h>

#define MAX_WAITERS 4
#define NEVENTS  10000
#define HANG_NS  10000000000LL

static int efd = -1, ackfd = -1;
static atomic_int tokens, taken;
static int nevents;
static weft_io_t h;

/* poll(): drain the pollfd first (a token that comes later comes with a
 * write that keeps the fd readable), then take a token if there is one. */
static int take_token(void *ctx)
{
    (void)ctx;
    uint64_t v;
    if (read(efd, &v, sizeof v) < 0) {
        /* EAGAIN: nothing written since the last poll */
    }
    int n = atomic_load(&tokens);
    while (n > 0 && !atomic_compare_exchange_weak(&tokens, &n, n - 1))
        ;
    return n > 0 ? 0 : -1; /* the first waiter takes it */
}

static int eventfd_of(void *ctx)
{
    (void)ctx;
    return efd;
}

/* Announce a token: on the class's fd, or as a kick. */
static void announce(int by_kick)
{
    uint64_t one = 1;
    if (by_kick)
        weft_io_kick(h);
    else if (write(efd, &one, sizeof one) < 0)
        return; /* saturated: a wake-up is pending anyway */
}

static void *waiter(void *arg)
{
    int share = (int)(intptr_t)arg;
    for (int i = 0; i < share; i++) {
        int rc = weft_io_wait(h, NULL);
        if (rc != 0)
            return (void *)(intptr_t)rc;
        atomic_fetch_add(&taken, 1);
        uint64_t one = 1;
        if (write(ackfd, &one, sizeof one) < 0)
            return (void *)(intptr_t)-1;
    }
    return NULL;
}

static void pause_a_little(unsigned *seed)
{
    unsigned r = rand_r(seed) % 100;
    if (r < 40)
        return; /* the waiter may still spin */
    if (r < 80) {
        int64_t until = wt_now_ns() + (int64_t)(rand_r(seed) % 30000);
        while (wt_now_ns() < until)
            ;
        return;
    }
    usleep(50 + rand_r(seed) % 1000); /* long enough for every worker to sleep */
}

static void *producer(void *arg)
{
    unsigned seed = 12345;
    (void)arg;
    for (int i = 0; i < nevents; i++) {
        pause_a_little(&seed);
        atomic_fetch_add(&tokens, 1);
        announce(rand_r(&seed) % 2);
        int64_t give_up = wt_now_ns() + HANG_NS;
        struct pollfd ack = { .fd = ackfd, .events = POLLIN };
        uint64_t v;
        while (atomic_load(&taken) <= i) {
            if (poll(&ack, 1, 100) == 1 && read(ackfd, &v, sizeof v) < 0)
                break;
            if (wt_now_ns() > give_up) {
                fprintf(stderr, "event %d of %d not taken in %lld s: a lost wake-up\n", i + 1,
                        nevents, HANG_NS / 1000000000);
                _exit(1); /* the waiters would never finish */
            }
        }
    }
    return NULL;
}

static int setup(void **state)
{
    setenv("WEFT_WORKERS", "2", 1);
    if (wt_runtime_setup(state) != 0)
        return -1;
    return weft_io_set_strategy(WEFT_IO_ADAPTIVE);
}

static void run(int nwaiters)
{
    const char *s = getenv("WEFT_STRESS_SCALE");
    int scale = s && atoi(s) >= 1 ? atoi(s) : 1;
    nevents = NEVENTS / scale / nwaiters * nwaiters;
    atomic_store(&tokens, 0);
    atomic_store(&taken, 0);
    assert_true((efd = eventfd(0, EFD_NONBLOCK)) >= 0);
    assert_true((ackfd = eventfd(0, EFD_NONBLOCK)) >= 0);
    weft_io_params p = { .name = "tokens", .poll = take_token, .pollfd = eventfd_of };
    assert_non_null(h = weft_io_register(&p));
    weft_thread_t w[MAX_WAITERS];
    for (int i = 0; i < nwaiters; i++)
        assert_int_equal(weft_thread_create(&w[i], NULL, waiter,
                                            (void *)(intptr_t)(nevents / nwaiters)), 0);
    pthread_t prod;
    assert_int_equal(pthread_create(&prod, NULL, producer, NULL), 0);
    assert_int_equal(pthread_join(prod, NULL), 0);
    for (int i = 0; i < nwaiters; i++) {
        void *rc;
        assert_int_equal(weft_thread_join(w[i], &rc), 0);
        assert_int_equal((intptr_t)rc, 0);
    }
    assert_int_equal(atomic_load(&taken), nevents);
    assert_int_equal(atomic_load(&tokens), 0);
    assert_int_equal(weft_io_unregister(h), 0);
    close(efd);
    close(ackfd);
}

/* One waiter: between events nobody waits, the server thread disengages,
 * and an idle worker may take the next wait into the poll set itself. */
static void test_one_waiter(void **state)
{
    (void)state;
    run(1);
}

/* Four waiters: some always wait, so the server thread stays engaged
 * beside the workers that run the woken ones. */
static void test_four_waiters(void **state)
{
    (void)state;
    run(MAX_WAITERS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_waiter),
        cmocka_unit_test(test_four_waiters),
    };
    return cmocka_run_group_tests(tests, setup, wt_runtime_teardown);
}
