/* Matched probes (MPI_Mprobe, MPI_Improbe, MPI_Mrecv, MPI_Imrecv): the
 * engine side, for binding/mprobe.c.
 *
 * A matched probe takes the message out of the communicator's unexpected
 * queue into a wmpi_message (what MPI_Message points to), so no other
 * receive or probe can see it; a matched receive then delivers exactly
 * that message. MPI_MESSAGE_NO_PROC (a probe of MPI_PROC_NULL) is handled
 * by the bindings and never reaches these functions.
 */
#ifndef WMPI_MPROBE_H
#define WMPI_MPROBE_H

#include "engine/engine.h"

struct wmpi_unexp;

typedef struct wmpi_message {
    struct wmpi_unexp *u; /* private: the message, out of every queue */
    wmpi_comm *comm;      /* read-only: where it was probed */
    uint32_t magic;       /* atomic: WMPI_MSG_LIVE until received, then
                             WMPI_MSG_FREED (past the words free() reuses) */
} wmpi_message;

#define WMPI_MSG_LIVE 0x4753454du  /* "MESG" */
#define WMPI_MSG_FREED 0x4453454du /* "MESD" */

/* 1 if m looks like a message a probe gave and no receive took yet: not a
 * small integer or misaligned pointer, not zeroed or received (a received
 * message's memory waits in the quarantine for a while, so a stale copy
 * of the handle reads owned memory). One load and compare. The
 * MPI_MESSAGE_NO_PROC sentinel is the bindings' business. */
static inline int wmpi_message_is_live(const wmpi_message *m)
{
    return WMPI_MARKED_LIVE(m, wmpi_message, WMPI_MSG_LIVE);
}

/* Take the first message matching (src, tag) on c (src a comm rank or
 * WMPI_ANY_SOURCE, not PROC_NULL): *msg gets it and *st its envelope and
 * size; wmpi_improbe sets *msg NULL if none arrived yet, wmpi_mprobe
 * blocks the caller until one does. Errors: -ECONNRESET (the source, or
 * with WMPI_ANY_SOURCE a member of c, was lost), WEFT_ENOMEM. */
int wmpi_improbe(int src, int tag, wmpi_comm *c, wmpi_message **msg,
                 wmpi_status *st);
int wmpi_mprobe(int src, int tag, wmpi_comm *c, wmpi_message **msg,
                wmpi_status *st);

/* Start receiving message `msg` into (buf, count, dt); *out is the
 * request (complete already for an eager or copied message). msg is
 * consumed on success, kept on error. Errors: WEFT_EINVAL (count * size
 * overflows), WEFT_ENOMEM. Blocks: no. */
int wmpi_imrecv(void *buf, int count, wmpi_datatype *dt, wmpi_message *msg,
                wmpi_request **out);

#endif /* WMPI_MPROBE_H */
