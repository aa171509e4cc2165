/* A rank program for the launcher tests that need the MPI engine itself
 * (boot_prog.c has only the bootstrap). The first argument picks a
 * behaviour:
 *
 *   ok          exchange messages of 1 byte and 1 MiB with the next and the
 *               previous rank (checked); print "rank R ok memfd_maps=N"
 *   stream MIB  pairs of ranks (0 with 1, 2 with 3...) exchange messages of
 *               MIB MiB both ways, forever, checking each; after the first
 *               exchange print "ready R PID memfd_maps=N"
 *
 * memfd_maps=N counts the mappings of Weft's shared-memory segments in the
 * process (/proc/self/maps lines naming the memfd "weft-mpi-shm"), so a
 * test can tell whether the ranks talk through shared memory. A failed
 * check prints "mpi_prog: rank R: ..." on stderr and exits 3.
 *
 * Invariants: output lines are written with one write(), so a test that
 * reads them sees whole lines.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

static int rank, size;

static void say(const char *fmt, ...)
{
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (write(1, buf, (size_t)n) < 0)
        exit(99);
}

static void check(int ok, const char *what)
{
    if (ok)
        return;
    fprintf(stderr, "mpi_prog: rank %d: %s\n", rank, what);
    exit(3);
}

static int memfd_maps(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    int n = 0;
    while (f && fgets(line, sizeof line, f))
        n += strstr(line, "/memfd:weft-mpi-shm") != NULL;
    if (f)
        fclose(f);
    return n;
}

static unsigned char byte_of(int from, unsigned iter, size_t i)
{
    uint64_t x = ((uint64_t)from << 40 ^ (uint64_t)iter << 20 ^ i) * 0x9e3779b97f4a7c15ull;
    return (unsigned char)(x >> 56);
}

static void fill(unsigned char *b, size_t n, int from, unsigned iter)
{
    for (size_t i = 0; i < n; i++)
        b[i] = byte_of(from, iter, i);
}

static int verify(const unsigned char *b, size_t n, int from, unsigned iter)
{
    for (size_t i = 0; i < n; i++)
        if (b[i] != byte_of(from, iter, i))
            return 0;
    return 1;
}

/* Send n bytes to `to` while receiving n from `from`; check them. */
static void exchange(unsigned char *out, unsigned char *in, size_t n, int to, int from,
                     unsigned iter)
{
    MPI_Request r[2];
    fill(out, n, rank, iter);
    check(MPI_Irecv(in, (int)n, MPI_BYTE, from, (int)(iter % 1000), MPI_COMM_WORLD, &r[0]) ==
              MPI_SUCCESS, "MPI_Irecv failed");
    check(MPI_Isend(out, (int)n, MPI_BYTE, to, (int)(iter % 1000), MPI_COMM_WORLD, &r[1]) ==
              MPI_SUCCESS, "MPI_Isend failed");
    check(MPI_Waitall(2, r, MPI_STATUSES_IGNORE) == MPI_SUCCESS, "MPI_Waitall failed");
    check(verify(in, n, from, iter), "a message arrived wrong");
}

static int mode_ok(void)
{
    size_t n = (size_t)1 << 20;
    unsigned char *out = malloc(n), *in = malloc(n);
    check(out && in, "no memory");
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    exchange(out, in, 1, next, prev, 0);
    exchange(out, in, n, next, prev, 1);
    exchange(out, in, n, prev, next, 2);
    check(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS, "MPI_Barrier failed");
    say("rank %d ok memfd_maps=%d\n", rank, memfd_maps());
    free(out);
    free(in);
    return 0;
}

/* The same message every time, fully checked every 16th, so that nearly
 * all the time goes to moving bytes: a kill lands mid-transfer. */
static _Noreturn void mode_stream(size_t mib)
{
    size_t n = mib << 20;
    int partner = rank ^ 1;
    unsigned char *out = malloc(n), *in = malloc(n);
    check(out && in && mib > 0, "no memory, or a size of 0");
    check(partner < size, "stream needs an even number of ranks");
    fill(out, n, rank, 0);
    for (unsigned iter = 0;; iter++) {
        MPI_Request r[2];
        in[0] = (unsigned char)~byte_of(partner, 0, 0);
        check(MPI_Irecv(in, (int)n, MPI_BYTE, partner, 0, MPI_COMM_WORLD, &r[0]) == MPI_SUCCESS &&
                  MPI_Isend(out, (int)n, MPI_BYTE, partner, 0, MPI_COMM_WORLD, &r[1]) ==
                      MPI_SUCCESS &&
                  MPI_Waitall(2, r, MPI_STATUSES_IGNORE) == MPI_SUCCESS,
              "a stream exchange failed");
        check(in[0] == byte_of(partner, 0, 0) && (iter % 16 || verify(in, n, partner, 0)),
              "a message arrived wrong");
        if (iter == 0)
            say("ready %d %d memfd_maps=%d\n", rank, (int)getpid(), memfd_maps());
    }
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    int rc = 2;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (!strcmp(mode, "ok"))
        rc = mode_ok();
    else if (!strcmp(mode, "stream") && argc == 3)
        mode_stream((size_t)atol(argv[2]));
    else
        fprintf(stderr, "mpi_prog: unknown mode\n");
    MPI_Finalize();
    return rc;
}
