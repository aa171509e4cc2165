/* Receive timestamps (rx_stamp.h). */
#include <errno.h>
#include <string.h>

#include "transport/rx_stamp.h"

static int64_t clock_ns(clockid_t c)
{
    struct timespec ts;

    clock_gettime(c, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int wmpi_rx_stamp_enable(int fd)
{
    int one = 1;

    return setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof one) < 0 ? -errno : 0;
}

int wmpi_rx_stamp_read(struct msghdr *msg, int64_t *arrival_ns, int64_t *now_ns)
{
    struct cmsghdr *c;

    if (msg->msg_controllen == 0)
        return 0;
    for (c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
            struct timespec ts;
            int64_t age;

            memcpy(&ts, CMSG_DATA(c), sizeof ts);
            age = clock_ns(CLOCK_REALTIME) - ((int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec);
            *now_ns = clock_ns(CLOCK_MONOTONIC);
            *arrival_ns = *now_ns - (age > 0 ? age : 0);
            return 1;
        }
    }
    return 0;
}
