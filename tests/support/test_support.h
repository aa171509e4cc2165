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

/* Time tolerances are widened when WEFT_SLOW_TESTS or CI is set. */
int64_t wt_tolerance(int64_t ns);

#endif
