/* Shared fixtures for Weft's CMocka tests: runtime set-up and tear-down,
 * a monotonic clock and time tolerances for slow (CI, sanitizer) machines,
 * and reading a child's output with a deadline. */
#include "test_support.h"

#include <poll.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <weft.h>

int wt_runtime_setup(void **state)
{
    (void)state;
    return weft_init() == 0 ? 0 : -1;
}

int wt_one_worker_setup(void **state)
{
    setenv("WEFT_WORKERS", "1", 1);
    return wt_runtime_setup(state);
}

int wt_runtime_teardown(void **state)
{
    (void)state;
    return weft_fini() == 0 ? 0 : -1;
}

int64_t wt_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t wt_tolerance(int64_t ns)
{
    if (getenv("WEFT_SLOW_TESTS") || getenv("CI"))
        ns *= 10;
    return WT_TSAN ? ns * 10 : ns;
}

int wt_read_all(int fd, char *out, size_t cap, int64_t deadline)
{
    size_t len = 0;
    while (wt_now_ns() < deadline) {
        struct pollfd p = { fd, POLLIN, 0 };
        if (poll(&p, 1, 100) <= 0)
            continue;
        ssize_t n = read(fd, out + len, cap - 1 - len);
        if (n <= 0)
            return 0;
        len += (size_t)n;
        out[len] = '\0';
        if (len == cap - 1)
            return 0;
    }
    return -1;
}
