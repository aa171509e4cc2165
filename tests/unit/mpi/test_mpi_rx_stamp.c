/* Receive timestamps (transport/rx_stamp.c) on a real loopback TCP
 * connection: data that waited in the socket while the reader slept comes
 * back with an arrival time at least that sleep in the past, and no later
 * than the moment the data was sent; a socket that did not ask for stamps
 * gets none. The kernel turns stamping on lazily, so a few messages may
 * pass before the first stamp. */
#include "test_support.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <unistd.h>

#include "transport/rx_stamp.h"

#define MS 1000000LL
#define TRIES 20

static int sv[2]; /* [0] writes, [1] reads */

static int tcp_pair(void **state)
{
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t len = sizeof a;
    int l = socket(AF_INET, SOCK_STREAM, 0);

    (void)state;
    assert_true(l >= 0);
    assert_int_equal(bind(l, (struct sockaddr *)&a, len), 0);
    assert_int_equal(listen(l, 1), 0);
    assert_int_equal(getsockname(l, (struct sockaddr *)&a, &len), 0);
    sv[0] = socket(AF_INET, SOCK_STREAM, 0);
    assert_int_equal(connect(sv[0], (struct sockaddr *)&a, len), 0);
    sv[1] = accept(l, NULL, NULL);
    assert_true(sv[1] >= 0);
    close(l);
    return 0;
}

static int close_pair(void **state)
{
    (void)state;
    close(sv[0]);
    close(sv[1]);
    return 0;
}

/* Send one byte, sleep `pause_ns`, read it: 1 if it came with a stamp. */
static int exchange(int64_t pause_ns, int64_t *sent, int64_t *arrival, int64_t *now)
{
    wmpi_rx_stamp_buf ctl;
    char c = 'x';
    struct iovec iov = { &c, 1 };
    struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
                          .msg_controllen = sizeof ctl.buf };
    struct timespec ts = { 0, pause_ns };

    *sent = wt_now_ns();
    assert_int_equal(write(sv[0], &c, 1), 1);
    nanosleep(&ts, NULL);
    assert_int_equal(recvmsg(sv[1], &msg, 0), 1);
    return wmpi_rx_stamp_read(&msg, arrival, now);
}

static void data_that_waited_is_stamped_in_the_past(void **state)
{
    int64_t sent = 0, arrival = 0, now = 0;
    int stamped = 0;

    (void)state;
    assert_int_equal(wmpi_rx_stamp_enable(sv[1]), 0);
    for (int i = 0; i < TRIES && !stamped; i++)
        stamped = exchange(3 * MS, &sent, &arrival, &now);
    assert_true(stamped);
    assert_true(now - arrival >= 3 * MS);   /* it waited through the sleep */
    assert_true(arrival >= sent - 1 * MS);  /* not before it was sent (clock slack) */
}

static void unstamped_socket_gets_no_stamp(void **state)
{
    int64_t sent, arrival = -1, now = -1;

    (void)state;
    for (int i = 0; i < 3; i++)
        assert_int_equal(exchange(0, &sent, &arrival, &now), 0);
    assert_int_equal(arrival, -1); /* untouched */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(data_that_waited_is_stamped_in_the_past, tcp_pair,
                                        close_pair),
        cmocka_unit_test_setup_teardown(unstamped_socket_gets_no_stamp, tcp_pair, close_pair),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
