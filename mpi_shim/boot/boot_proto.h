/* The control protocol between a rank (boot/boot.c) and Weft's mpirun
 * (launcher/wireup.c). Both sides include this header; it is the only thing
 * they share, so a change here is a change of WMPI_PROTO_VERSION.
 *
 * Transport: one TCP connection per rank to the address(es) in
 * WEFT_MPI_CONTROL, plus a short extra connection for an abort. Every
 * message is a header of two big-endian 32-bit words, type and body length,
 * then the body. The first message on a connection is always HELLO, which
 * carries the job secret; the launcher closes a connection whose HELLO is
 * malformed, late, for an unknown or already connected rank, or carries a
 * wrong secret, without a reply.
 *
 *   rank -> launcher                      launcher -> rank
 *   HELLO    magic version kind rank pid  WELCOME  size rank      (kind RANK)
 *            secret[16]
 *   GATHER   len bytes                    GATHERED size*len bytes, rank order
 *   FINALIZE (empty)                      FINALIZED (empty)
 *   ABORT    code(i32) message bytes      ABORTED  (empty)     (kind ABORT)
 *
 * Each request has exactly one reply, and a rank sends its next request
 * only after the reply to the previous one: the launcher keeps at most one
 * message in flight per connection. A GATHER with len 0 is a barrier.
 */
#ifndef WMPI_BOOT_PROTO_H
#define WMPI_BOOT_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "boot.h"

#define WMPI_PROTO_MAGIC   0x57454654u /* "WEFT" */
#define WMPI_PROTO_VERSION 1u

/* Environment set by mpirun in every rank (see boot.h). */
#define WMPI_ENV_RANK       "WEFT_MPI_RANK"
#define WMPI_ENV_SIZE       "WEFT_MPI_SIZE"
#define WMPI_ENV_LOCAL_RANK "WEFT_MPI_LOCAL_RANK"
#define WMPI_ENV_LOCAL_SIZE "WEFT_MPI_LOCAL_SIZE"
#define WMPI_ENV_HOST       "WEFT_MPI_HOST"
#define WMPI_ENV_APPNUM     "WEFT_MPI_APPNUM"
#define WMPI_ENV_JOBID      "WEFT_MPI_JOBID"
#define WMPI_ENV_SECRET     "WEFT_MPI_SECRET"
#define WMPI_ENV_CONTROL    "WEFT_MPI_CONTROL"

enum wmpi_msg_type {
    WMPI_MSG_HELLO = 1,
    WMPI_MSG_WELCOME = 2,
    WMPI_MSG_GATHER = 3,
    WMPI_MSG_GATHERED = 4,
    WMPI_MSG_FINALIZE = 5,
    WMPI_MSG_FINALIZED = 6,
    WMPI_MSG_ABORT = 7,
    WMPI_MSG_ABORTED = 8,
};

enum wmpi_hello_kind {
    WMPI_HELLO_RANK = 1,  /* the rank's control connection */
    WMPI_HELLO_ABORT = 2, /* a one-shot connection carrying ABORT */
};

#define WMPI_MSG_HDR_LEN   8u
#define WMPI_HELLO_LEN     (20u + WMPI_SECRET_LEN) /* 5 words + secret */
#define WMPI_WELCOME_LEN   8u
#define WMPI_GATHER_MAX    (1u << 20) /* bytes one rank may contribute */
#define WMPI_ABORT_MSG_MAX 1024u      /* bytes of an abort message */

/* Seconds a new connection has to present its HELLO. */
#define WMPI_HELLO_TIMEOUT_S 10

static inline void wmpi_put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static inline uint32_t wmpi_get32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Decode 2n hex digits (exactly, then NUL) into n bytes: 0, or -1. */
static inline int wmpi_hex_decode(const char *s, uint8_t *out, size_t n)
{
    for (size_t i = 0; i < 2 * n; i++) {
        char c = s[i];
        int v = c >= '0' && c <= '9' ? c - '0'
              : c >= 'a' && c <= 'f' ? c - 'a' + 10
              : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (v < 0)
            return -1;
        out[i / 2] = (uint8_t)(i % 2 ? out[i / 2] << 4 | v : v);
    }
    return s[2 * n] == '\0' ? 0 : -1;
}

/* Encode n bytes as 2n lowercase hex digits and a NUL. */
static inline void wmpi_hex_encode(const uint8_t *in, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[in[i] >> 4];
        out[2 * i + 1] = digits[in[i] & 15];
    }
    out[2 * n] = '\0';
}

/* The exit status of a process that aborts with MPI error code `code`:
 * the code's low byte, or 1 if that is 0 (an abort is a failure even
 * with code 0 or 256). Both sides use it, so mpirun's exit status and the
 * aborting rank's agree. */
static inline int wmpi_abort_status(int code)
{
    return (code & 0xff) ? (code & 0xff) : 1;
}

#endif /* WMPI_BOOT_PROTO_H */
