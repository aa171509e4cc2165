/* Shared fixtures for Weft's CMocka tests. */
#ifndef WEFT_TEST_SUPPORT_H
#define WEFT_TEST_SUPPORT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

/* Group setup/teardown that start and stop the runtime (weft_init/fini);
 * teardown fails the group if threads were left behind. */
int wt_runtime_setup(void **state);
int wt_runtime_teardown(void **state);
/* wt_runtime_setup with a single worker (WEFT_WORKERS=1): for tests whose
 * waiter must leave the only worker idle. */
int wt_one_worker_setup(void **state);

/* Monotonic time in nanoseconds. */
int64_t wt_now_ns(void);

/* Time tolerances are widened when WEFT_SLOW_TESTS or CI is set, and
 * again under ThreadSanitizer. */
int64_t wt_tolerance(int64_t ns);

/* Read fd into out (NUL-terminated, at most cap - 1 bytes) until EOF, a
 * full buffer or the deadline (wt_now_ns): 0, or -1 on timeout. */
int wt_read_all(int fd, char *out, size_t cap, int64_t deadline);

/* Whether this build runs under ThreadSanitizer. */
#if defined(__SANITIZE_THREAD__)
#define WT_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define WT_TSAN 1
#endif
#endif
#ifndef WT_TSAN
#define WT_TSAN 0
#endif

/* Skip the calling test case under ThreadSanitizer, which runs signal
 * handlers only at its own interception points: there a tick cannot
 * preempt a loop that never enters the runtime, and a signal sent to a
 * busy worker waits for that worker's next intercepted call. Tests that
 * depend on either call this first. */
#define WT_SKIP_UNDER_TSAN()                                                  \
    do {                                                                      \
        if (WT_TSAN) {                                                        \
            print_message("skipped: needs asynchronous signal delivery, "     \
                          "which ThreadSanitizer defers\n");                  \
            skip();                                                           \
        }                                                                     \
    } while (0)

/* An iteration count for a race hunt: `n`, or n / 20 under
 * ThreadSanitizer, whose instrumented atomics and fibers make each round
 * tens of times slower (and which finds a race in far fewer rounds). */
#define WT_ROUNDS(n) (WT_TSAN ? ((n) / 20 > 0 ? (n) / 20 : 1) : (n))

#endif
