/* Receive timestamps: when the kernel took in the data a read returned.
 *
 * The engine tells the I/O server what a sleep cost (weft_io_note_wake):
 * the lag from the arrival of the data that ended the sleep to its
 * reading. The kernel stamps incoming data in CLOCK_REALTIME when asked
 * (SO_TIMESTAMPNS) and hands the stamp of the latest data a recvmsg()
 * returned as a control message; the I/O server counts in
 * CLOCK_MONOTONIC. The kernel turns stamping on for the whole system
 * lazily, so the first data after the first socket asks may carry none.
 */
#ifndef WMPI_RX_STAMP_H
#define WMPI_RX_STAMP_H

#include <stdint.h>
#include <sys/socket.h>
#include <time.h>

/* Room for the control message recvmsg() fills with a stamp. */
typedef union wmpi_rx_stamp_buf {
    char buf[CMSG_SPACE(sizeof(struct timespec))];
    struct cmsghdr align;
} wmpi_rx_stamp_buf;

/* Ask the kernel to stamp the data arriving on socket fd. Returns 0 or
 * -errno (the socket works the same either way). Blocks: no. */
int wmpi_rx_stamp_enable(int fd);

/* The stamp of the data a recvmsg() into msg just returned, if the kernel
 * gave one: returns 1 with when the data arrived and now (CLOCK_MONOTONIC
 * ns; an arrival stamped in the future is taken as now), else 0.
 * Blocks: no. */
int wmpi_rx_stamp_read(struct msghdr *msg, int64_t *arrival_ns, int64_t *now_ns);

#endif /* WMPI_RX_STAMP_H */
