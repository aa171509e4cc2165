/* Fuzz target: mpirun's control server (mpi_shim/launcher/wireup.c), the
 * first code a stranger's bytes reach.
 *
 * Each input is a script of chunks for up to four connections of one
 * job of three running ranks: a chunk is one byte (the connection, its
 * low two bits), two bytes of length (big-endian) and that many bytes (or
 * what is left). A connection is one end of a socket pair handed to
 * wl_wireup_adopt when its first chunk comes; each chunk is written to the
 * other end, then the server runs one round of its poll loop. At the end
 * the writing ends are shut, the server reads the end of every stream,
 * and everything is freed (LeakSanitizer checks that).
 *
 * What must hold, besides no crash, hang or leak: a rank joins only if the
 * input holds the job's secret (a stranger cannot guess its way in), and
 * every abort line the job would print is one printable line.
 *
 * The job's reactions (job.c) are recorded here instead of acted on: this
 * process starts no ranks.
 */
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "launcher.h"

#define NRANKS 3
#define NCONNS 4

static const uint8_t secret[WMPI_SECRET_LEN] = "fuzz-job-secret";

static struct wl_opts opts;
static struct wl_host host = { .local = 1 };
static int joined;

/* ------------------------------------------------- job.c, recorded here */

void wl_job_fail(struct wl_job *j, int status, const char *fmt, ...)
{
    (void)fmt;
    j->failed = 1;
    j->status = status;
}

void wl_job_rank_joined(struct wl_job *j, struct wl_rank *r)
{
    (void)j;
    (void)r;
    joined++;
}

void wl_job_abort(struct wl_job *j, int status, const char *text)
{
    for (const char *s = text; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            abort(); /* an abort line with a control character */
    j->abort_pending = 1;
    j->abort_status = status;
}

const char *wl_rank_name(const struct wl_rank *r, char *buf, size_t len)
{
    snprintf(buf, len, "rank %d", r->rank);
    return buf;
}

/* ----------------------------------------------------------- the target */

static void job_init(struct wl_job *j, struct wl_rank *ranks)
{
    memset(j, 0, sizeof *j);
    memset(ranks, 0, NRANKS * sizeof *ranks);
    j->o = &opts;
    j->n = NRANKS;
    j->ranks = ranks;
    j->listen_fd = -1;
    j->unix_fd = -1;
    j->uninit_exit = -1;
    j->deadline = -1;
    memcpy(j->secret, secret, sizeof secret);
    for (int i = 0; i < NRANKS; i++) {
        ranks[i].rank = i;
        ranks[i].alive = 1;
        ranks[i].host = &host;
    }
}

/* One round of mpirun's loop, without waiting. */
static void serve_round(struct wl_job *j)
{
    struct wl_poll p = { .deadline = -1 };
    wl_wireup_poll(j, &p);
    if (p.n > 0 && poll(p.pfd, (nfds_t)p.n, 0) > 0)
        for (int i = 0; i < p.n; i++)
            if (p.pfd[i].revents)
                p.slot[i].fn(j, p.slot[i].arg, p.pfd[i].revents);
    free(p.pfd);
    free(p.slot);
}

static int open_conn(struct wl_job *j, int *writer)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) != 0)
        return -1;
    *writer = sv[1];
    wl_wireup_adopt(j, sv[0], "fuzz");
    return 0;
}

static void run_script(struct wl_job *j, const uint8_t *d, size_t n, int *writer)
{
    while (n >= 3) {
        int c = d[0] & (NCONNS - 1);
        size_t len = (size_t)d[1] << 8 | d[2];
        d += 3, n -= 3;
        if (len > n)
            len = n;
        if (writer[c] < 0 && open_conn(j, &writer[c]) != 0)
            return;
        /* A full socket takes part of the chunk: the server sees less. */
        if (len > 0)
            (void)send(writer[c], d, len, MSG_NOSIGNAL | MSG_DONTWAIT);
        d += len, n -= len;
        serve_round(j);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct wl_job j;
    struct wl_rank ranks[NRANKS];
    int writer[NCONNS] = { -1, -1, -1, -1 };

    job_init(&j, ranks);
    joined = 0;
    run_script(&j, data, size, writer);
    for (int c = 0; c < NCONNS; c++)
        if (writer[c] >= 0)
            shutdown(writer[c], SHUT_WR);
    serve_round(&j);
    if (joined > 0 && !memmem(data, size, secret, sizeof secret))
        abort(); /* a rank joined without presenting the secret */
    wl_wireup_close(&j);
    for (int c = 0; c < NCONNS; c++)
        if (writer[c] >= 0)
            close(writer[c]);
    return 0;
}
