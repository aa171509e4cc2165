/* The blocking I/O calls block only the calling ULT: over TCP loopback a
 * server ULT (weft_accept, weft_recv, weft_send) and a client ULT
 * (weft_connect, weft_write, weft_read) exchange a buffer much larger than
 * the socket buffers, so every call must wait for the other side many
 * times; both run on one worker, so neither may block it. The data come
 * back intact, weft_write/weft_send write everything, and errors are
 * returned as -errno: a bad fd (-EBADF), a refused connection
 * (-ECONNREFUSED), end of file (0).
 */
#include "test_support.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <weft.h>

#define BYTES (4 * 1024 * 1024)

static int lsock;
static struct sockaddr_in addr;
static unsigned char *out, *back;
static ssize_t server_rc = -1, client_rc = -1;

static void *server(void *arg)
{
    (void)arg;
    int s = weft_accept(lsock, NULL, NULL);
    if (s < 0)
        return NULL;
    char *buf = malloc(65536);
    ssize_t total = 0, n = -1;
    while (buf && (n = weft_recv(s, buf, 65536, 0)) > 0) {
        if (weft_send(s, buf, (size_t)n, 0) != n)
            break;
        total += n;
    }
    server_rc = n == 0 ? total : n;
    free(buf);
    close(s);
    return NULL;
}

/* Reads the echo while it writes: the reader is a third ULT. */
static void *echo_reader(void *arg)
{
    int s = *(int *)arg;
    ssize_t got = 0, n = 1;
    while (got < BYTES && (n = weft_read(s, back + got, (size_t)(BYTES - got))) > 0)
        got += n;
    client_rc = n > 0 ? got : n;
    return NULL;
}

static void *client(void *arg)
{
    (void)arg;
    int s = socket(AF_INET, SOCK_STREAM, 0);
    if (weft_connect(s, (struct sockaddr *)&addr, sizeof addr) != 0)
        return NULL;
    weft_thread_t r;
    if (weft_thread_create(&r, NULL, echo_reader, &s) != 0)
        return NULL;
    if (weft_write(s, out, BYTES) != BYTES)
        client_rc = -1;
    shutdown(s, SHUT_WR);
    weft_thread_join(r, NULL);
    close(s);
    return NULL;
}

static int setup(void **state)
{
    setenv("WEFT_WORKERS", "1", 1);
    return wt_runtime_setup(state);
}

static void listen_loopback(void)
{
    lsock = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(lsock >= 0);
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    assert_int_equal(bind(lsock, (struct sockaddr *)&addr, len), 0);
    assert_int_equal(getsockname(lsock, (struct sockaddr *)&addr, &len), 0);
    assert_int_equal(listen(lsock, 4), 0);
}

static void test_echo_large_buffer(void **state)
{
    (void)state;
    listen_loopback();
    out = malloc(BYTES);
    back = malloc(BYTES);
    assert_non_null(out);
    assert_non_null(back);
    for (int i = 0; i < BYTES; i++)
        out[i] = (unsigned char)(i * 7 + i / 4096);
    weft_thread_t s, c;
    assert_int_equal(weft_thread_create(&s, NULL, server, NULL), 0);
    assert_int_equal(weft_thread_create(&c, NULL, client, NULL), 0);
    assert_int_equal(weft_thread_join(c, NULL), 0);
    assert_int_equal(weft_thread_join(s, NULL), 0);
    assert_int_equal(server_rc, BYTES);
    assert_int_equal(client_rc, BYTES);
    assert_memory_equal(out, back, BYTES);
    free(out);
    free(back);
    close(lsock);
}

static void test_errors_are_negative_errno(void **state)
{
    (void)state;
    char b;
    assert_int_equal(weft_read(-1, &b, 1), -EBADF);
    assert_int_equal(weft_recv(-1, &b, 1, 0), -EBADF);
    assert_int_equal(weft_fd_wait(-1, WEFT_IO_READ, 0), -EBADF);
    assert_int_equal(weft_fd_wait(0, 0, 0), WEFT_EINVAL);
    listen_loopback(); /* a port, then closed: connecting is refused */
    close(lsock);
    int s = socket(AF_INET, SOCK_STREAM, 0);
    assert_int_equal(weft_connect(s, (struct sockaddr *)&addr, sizeof addr), -ECONNREFUSED);
    close(s);
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    close(sv[1]);
    assert_int_equal(weft_read(sv[0], &b, 1), 0); /* EOF */
    close(sv[0]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_echo_large_buffer),
        cmocka_unit_test(test_errors_are_negative_errno),
    };
    return cmocka_run_group_tests(tests, setup, wt_runtime_teardown);
}
