/* A rank program for the launcher tests: it uses only the bootstrap
 * (mpi_shim/boot/boot.c, linked in directly), not the MPI engine, so
 * mpirun can be tested on its own. The first argument picks a behaviour:
 *
 *   ok                   init, all-gathers of 8 and 1000 bytes (checked),
 *                        barrier, finalize; prints "rank R ok"
 *   exit R CODE          init, finalize, then rank R exits with CODE
 *   hang                 init, print "ready R PID", sleep forever
 *                        (ignoring SIGTERM if BOOT_PROG_IGNORE_TERM is set)
 *   abort R CODE MSG     init, barrier; rank R aborts with CODE and MSG,
 *                        the others print "ready R PID" and sleep
 *   nofinalize R         init; rank R exits 0, the others sleep
 *   noinit R             rank R exits 0 at once; the others init and wait
 *                        in an all-gather that can never complete
 *   lines N MAX          no bootstrap: N lines on stdout and on stderr, of
 *                        up to MAX bytes, each line "R:I:LEN:payload",
 *                        written in random pieces with write(2)
 *   stdin                read stdin to EOF; print "rank R bytes=N sum=S"
 *   env VAR...           print "rank R VAR=value" (or VAR unset) for each
 *   stray                rank 0 first knocks at the control server with a
 *                        wrong secret, garbage, and (after init) a second
 *                        HELLO for its own rank; prints "stray refused"
 *                        when every one was closed without a reply; then
 *                        all ranks do what "ok" does
 *
 * Invariants: output lines are written with one write() unless the mode
 * says otherwise, so a test that reads them sees whole lines.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "boot.h"
#include "boot_proto.h"

static void say(const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (write(1, buf, (size_t)n) < 0)
        exit(99);
}

static _Noreturn void die(const char *what)
{
    fprintf(stderr, "boot_prog: %s\n", what);
    exit(98);
}

static _Noreturn void sleep_forever(void)
{
    for (;;)
        pause();
}

static void boot(wmpi_boot *b)
{
    if (wmpi_boot_init(b) != 0)
        die("wmpi_boot_init failed");
}

/* ------------------------------------------------------------ ok */

static void gather_checked(wmpi_boot *b, size_t len)
{
    unsigned char *mine = malloc(len), *all = malloc(len * (size_t)b->size);
    for (size_t i = 0; i < len; i++)
        mine[i] = (unsigned char)(b->rank * 31 + i);
    if (!mine || !all || wmpi_boot_allgather(b, mine, len, all) != 0)
        die("allgather failed");
    for (int r = 0; r < b->size; r++)
        for (size_t i = 0; i < len; i++)
            if (all[(size_t)r * len + i] != (unsigned char)(r * 31 + i))
                die("allgather returned wrong data");
    free(mine);
    free(all);
}

static int mode_ok(wmpi_boot *b)
{
    gather_checked(b, 8);
    gather_checked(b, 1000);
    if (wmpi_boot_barrier(b) != 0 || wmpi_boot_finalize(b) != 0)
        die("barrier or finalize failed");
    say("rank %d ok\n", b->rank);
    return 0;
}

/* ------------------------------------------------------------ failures */

static int mode_exit(wmpi_boot *b, int who, int code)
{
    if (wmpi_boot_barrier(b) != 0 || wmpi_boot_finalize(b) != 0)
        die("barrier or finalize failed");
    return b->rank == who ? code : 0;
}

static int mode_hang(wmpi_boot *b)
{
    if (getenv("BOOT_PROG_IGNORE_TERM"))
        signal(SIGTERM, SIG_IGN);
    say("ready %d %d\n", b->rank, (int)getpid());
    sleep_forever();
}

static int mode_abort(wmpi_boot *b, int who, int code, const char *msg)
{
    if (wmpi_boot_barrier(b) != 0)
        die("barrier failed");
    if (b->rank == who)
        wmpi_boot_abort(b, code, msg);
    return mode_hang(b);
}

static int mode_noinit(int who)
{
    const char *r = getenv("WEFT_MPI_RANK");
    if (r && atoi(r) == who)
        return 0;
    wmpi_boot b;
    boot(&b);
    gather_checked(&b, 8);
    die("the all-gather completed without the rank that never joined");
}

/* ------------------------------------------------------------ lines */

static size_t rnd(unsigned *state, size_t n)
{
    *state = *state * 1103515245u + 12345u;
    return (*state >> 8) % n;
}

static void write_pieces(int fd, const char *p, size_t len, unsigned *state)
{
    while (len > 0) {
        size_t n = 1 + rnd(state, len < 5000 ? len : 5000);
        ssize_t w = write(fd, p, n);
        if (w <= 0)
            die("write failed");
        p += w;
        len -= (size_t)w;
        if (rnd(state, 4) == 0)
            usleep(50);
    }
}

static int mode_lines(int nlines, size_t max)
{
    const char *r = getenv("WEFT_MPI_RANK");
    int rank = r ? atoi(r) : 0;
    unsigned state = 7u + (unsigned)rank;
    char *line = malloc(max + 64);
    for (int i = 0; line && i < 2 * nlines; i++) {
        size_t len = 1 + rnd(&state, max);
        int n = snprintf(line, 64, "%d:%d:%zu:", rank, i / 2, len);
        for (size_t k = 0; k < len; k++)
            line[n + k] = (char)('a' + (rank + i / 2 + k) % 26);
        line[n + len] = '\n';
        write_pieces(1 + i % 2, line, (size_t)n + len + 1, &state);
    }
    free(line);
    return 0;
}

/* ------------------------------------------------------------ stdin, env */

static int mode_stdin(void)
{
    const char *r = getenv("WEFT_MPI_RANK");
    unsigned long long bytes = 0, sum = 0;
    unsigned char buf[65536];
    ssize_t n;
    while ((n = read(0, buf, sizeof buf)) > 0)
        for (ssize_t i = 0; i < n; i++, bytes++)
            sum = sum * 31 + buf[i];
    say("rank %s bytes=%llu sum=%llu\n", r ? r : "?", bytes, sum);
    return n < 0;
}

static int mode_env(int argc, char **argv)
{
    const char *r = getenv("WEFT_MPI_RANK");
    for (int i = 2; i < argc; i++) {
        const char *v = getenv(argv[i]);
        if (v)
            say("rank %s %s=%s\n", r ? r : "?", argv[i], v);
        else
            say("rank %s %s unset\n", r ? r : "?", argv[i]);
    }
    return 0;
}

/* ------------------------------------------------------------ stray */

/* Connect to the control server where this rank reached it (its Unix
 * socket on this host), send `len` bytes, and return 1 if it closed the
 * connection without sending a byte back. */
static int knock(const wmpi_boot *b, const void *msg, size_t len)
{
    int fd = socket(((const struct sockaddr *)b->ctl_addr)->sa_family, SOCK_STREAM, 0);
    if (fd < 0 || connect(fd, (const struct sockaddr *)b->ctl_addr, b->ctl_addrlen) < 0)
        die("cannot reach the control server");
    if (send(fd, msg, len, MSG_NOSIGNAL) != (ssize_t)len)
        die("send failed");
    char c;
    ssize_t n;
    do
        n = recv(fd, &c, 1, 0);
    while (n < 0 && errno == EINTR);
    close(fd);
    return n == 0 || (n < 0 && errno == ECONNRESET);
}

static size_t hello(uint8_t *m, const wmpi_boot *b, int rank, int flip)
{
    wmpi_put32(m, WMPI_MSG_HELLO);
    wmpi_put32(m + 4, WMPI_HELLO_LEN);
    wmpi_put32(m + 8, WMPI_PROTO_MAGIC);
    wmpi_put32(m + 12, WMPI_PROTO_VERSION);
    wmpi_put32(m + 16, WMPI_HELLO_RANK);
    wmpi_put32(m + 20, (uint32_t)rank);
    wmpi_put32(m + 24, (uint32_t)getpid());
    memcpy(m + 28, b->secret, WMPI_SECRET_LEN);
    m[28] ^= (uint8_t)flip;
    return WMPI_MSG_HDR_LEN + WMPI_HELLO_LEN;
}

static int mode_stray(wmpi_boot *b)
{
    uint8_t m[64];
    int rank0 = getenv("WEFT_MPI_RANK") && atoi(getenv("WEFT_MPI_RANK")) == 0;
    int refused = 1;
    /* Before init the address is unknown: init, knock, then do the rest. */
    boot(b);
    if (rank0) {
        refused &= knock(b, m, hello(m, b, 1, 0x01)); /* wrong secret, rank 1 */
        refused &= knock(b, m, hello(m, b, 0, 0x80)); /* wrong secret, rank 0 */
        refused &= knock(b, "GET / HTTP/1.0\r\n\r\n", 18);
        refused &= knock(b, m, hello(m, b, 0, 0));    /* right secret, rank taken */
        if (refused)
            say("stray refused\n");
    }
    return mode_ok(b);
}

int main(int argc, char **argv)
{
    wmpi_boot b;
    const char *mode = argc > 1 ? argv[1] : "";
    setvbuf(stdout, NULL, _IONBF, 0);
    if (!strcmp(mode, "lines") && argc == 4)
        return mode_lines(atoi(argv[2]), (size_t)atol(argv[3]));
    if (!strcmp(mode, "stdin"))
        return mode_stdin();
    if (!strcmp(mode, "env"))
        return mode_env(argc, argv);
    if (!strcmp(mode, "noinit") && argc == 3)
        return mode_noinit(atoi(argv[2]));
    if (!strcmp(mode, "stray"))
        return mode_stray(&b);
    boot(&b);
    if (!strcmp(mode, "ok"))
        return mode_ok(&b);
    if (!strcmp(mode, "exit") && argc == 4)
        return mode_exit(&b, atoi(argv[2]), atoi(argv[3]));
    if (!strcmp(mode, "hang"))
        return mode_hang(&b);
    if (!strcmp(mode, "abort") && argc == 5)
        return mode_abort(&b, atoi(argv[2]), atoi(argv[3]), argv[4]);
    if (!strcmp(mode, "nofinalize") && argc == 3)
        return b.rank == atoi(argv[2]) ? 0 : mode_hang(&b);
    die("unknown mode");
}
