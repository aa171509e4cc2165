/* The calling thread's run-queue delay (run_delay.h). */
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "util/run_delay.h"

static pthread_key_t fd_key;
static int key_ok;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static __thread int fd_plus_one; /* 0: not opened yet; -1 + 1: cannot */

static void close_fd(void *p)
{
    close((int)(intptr_t)p - 1);
}

static void make_key(void)
{
    key_ok = pthread_key_create(&fd_key, close_fd) == 0;
}

static int thread_fd(void)
{
    if (fd_plus_one == 0) {
        int fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
        pthread_once(&key_once, make_key);
        if (fd >= 0 && (!key_ok || pthread_setspecific(fd_key, (void *)(intptr_t)(fd + 1)) != 0)) {
            close(fd);
            fd = -1;
        }
        fd_plus_one = fd + 1;
    }
    return fd_plus_one - 1;
}

int64_t wf_run_delay_ns(void)
{
    char buf[96], *field;
    int fd = thread_fd();
    ssize_t n = fd >= 0 ? pread(fd, buf, sizeof buf - 1, 0) : -1;
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    strtoll(buf, &field, 10); /* on-CPU time: skipped */
    if (field == buf)
        return -1;
    return strtoll(field, NULL, 10);
}
