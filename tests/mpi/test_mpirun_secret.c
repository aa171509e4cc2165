/* The control server refuses connections without the job secret: a wrong
 * secret, garbage, and a second HELLO for a rank already connected are all
 * closed without a reply, and the job carries on to a clean end.
 *
 * And a rank keeps the secret to itself: told to reach mpirun at a Unix
 * socket that a process of another user holds (an abstract name mpirun no
 * longer holds, or one in another network namespace, may be anyone's), it
 * sends that process nothing and fails with a line that says why. Root
 * only: only root can be another user. */
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "launch_harness.h"

static void test_strays_refused(void **state)
{
    (void)state;
    struct wt_job j;
    int st = wt_run(&j, WT_ARGV(WT_MPIRUN, "-v", "-n", "3", WT_PROG, "stray"), NULL, 0, 60);
    assert_int_equal(st, 0);
    assert_int_equal(wt_count_lines(j.out, "stray refused"), 1);
    assert_int_equal(wt_count_lines(j.out, "rank "), 3);
    /* -v says why each was refused */
    assert_int_equal(wt_count_lines(j.err, "mpirun: refused a control connection"), 4);
    assert_non_null(strstr(j.err, ": wrong job secret\n"));
    assert_non_null(strstr(j.err, ": rank already connected\n"));
    assert_non_null(strstr(j.err, ": closed, or sent something other than a HELLO\n"));
    wt_job_free(&j);
    assert_int_equal(wt_leftovers(), 0);
}

#define NOBODY 65534
#define BOUND_MS 10000

/* As user NOBODY: listen on a fresh abstract Unix name, write it to
 * `name_fd`, take one connection and write to `count_fd` how many bytes
 * came on it before it closed (-1: none came within BOUND_MS). */
static void squatter(int name_fd, int count_fd)
{
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    socklen_t len = sizeof a;
    int fd = socket(AF_UNIX, SOCK_STREAM, 0), got = -1;
    if (setgid(NOBODY) != 0 || setuid(NOBODY) != 0 || fd < 0 ||
        bind(fd, (struct sockaddr *)&a, sizeof a.sun_family) != 0 || listen(fd, 4) != 0 ||
        getsockname(fd, (struct sockaddr *)&a, &len) != 0)
        _exit(2);
    char name[sizeof a.sun_path + 1] = "@";
    memcpy(name + 1, a.sun_path + 1, len - offsetof(struct sockaddr_un, sun_path) - 1);
    if (write(name_fd, name, sizeof name) != (ssize_t)sizeof name)
        _exit(3);
    struct pollfd p = { .fd = fd, .events = POLLIN };
    int c = poll(&p, 1, BOUND_MS) == 1 ? accept(fd, NULL, NULL) : -1;
    char buf[256];
    ssize_t n = 0;
    for (got = c >= 0 ? 0 : -1; c >= 0; got += (int)n) {
        p = (struct pollfd){ .fd = c, .events = POLLIN };
        if (poll(&p, 1, BOUND_MS) != 1 || (n = read(c, buf, sizeof buf)) <= 0)
            break;
    }
    _exit(write(count_fd, &got, sizeof got) == sizeof got ? 0 : 4);
}

static void test_rank_keeps_secret_from_other_user(void **state)
{
    (void)state;
    if (geteuid() != 0)
        skip();
    int names[2], counts[2], got = -2, status;
    char name[sizeof(((struct sockaddr_un *)0)->sun_path) + 1], ctl[sizeof name + 8];
    assert_int_equal(pipe(names), 0);
    assert_int_equal(pipe(counts), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        squatter(names[1], counts[1]);
    assert_int_equal(read(names[0], name, sizeof name), (ssize_t)sizeof name);
    snprintf(ctl, sizeof ctl, "unix:%s", name);
    setenv("WEFT_MPI_CONTROL", ctl, 1);
    setenv("WEFT_MPI_SIZE", "1", 1);
    setenv("WEFT_MPI_RANK", "0", 1);
    setenv("WEFT_MPI_SECRET", "00112233445566778899aabbccddeeff", 1);
    struct wt_job j;
    int st = wt_run(&j, WT_ARGV(WT_PROG, "ok"), NULL, 0, 30);
    unsetenv("WEFT_MPI_CONTROL");
    unsetenv("WEFT_MPI_SIZE");
    unsetenv("WEFT_MPI_RANK");
    unsetenv("WEFT_MPI_SECRET");
    assert_int_equal(read(counts[0], &got, sizeof got), (ssize_t)sizeof got);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_int_equal(got, 0); /* it connected, and said nothing */
    assert_int_not_equal(st, 0);
    assert_non_null(strstr(j.err, "cannot reach mpirun's control server at unix:@"));
    assert_non_null(strstr(j.err, "Permission denied"));
    wt_job_free(&j);
    assert_int_equal(wt_leftovers(), 0);
}

int main(int argc, char **argv)
{
    wt_launch_init(argc, argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_strays_refused),
        cmocka_unit_test(test_rank_keeps_secret_from_other_user),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
