/* bench/mpi_idle, the MPI program: how much CPU a rank burns while it
 * waits in MPI_Recv for a message that comes late. Plain MPI, built twice
 * by CMake: against Weft's mpi.h and with mpicc.openmpi.
 *
 *   mpi_idle_mpi --variant NAME --wait-ms W
 *
 * Two ranks. Both leave an MPI_Barrier; rank 1 then sleeps W ms
 * (clock_nanosleep) and sends 8 bytes; rank 0 reads its process's CPU
 * time (getrusage RUSAGE_SELF: user + system of all its threads, so the
 * runtime's own workers, progress and server threads count) and the
 * monotonic clock, waits in MPI_Recv, reads both again and prints one
 * `idle` line (mpi_idle.h).
 *
 * A self-destruct alarm bounds the program's life even if its launcher's
 * time limit fails.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "mpi_idle.h"

#define MSG_TAG 7
#define LIFETIME_EXTRA_S 120
#define MAX_WAIT_MS (3600 * 1000)

static double wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static double cpu_ms(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

static void wait_in_recv(const char *variant)
{
    uint64_t msg = 0;
    double c0 = cpu_ms(), w0 = wall_ms();
    MPI_Recv(&msg, 8, MPI_BYTE, 1, MSG_TAG, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    double c1 = cpu_ms(), w1 = wall_ms();
    printf(MI_IDLE_FORMAT, variant, c1 - c0, w1 - w0);
    fflush(stdout);
}

static void send_late(int wait_ms)
{
    uint64_t msg = 42;
    struct timespec ts = {wait_ms / 1000, (long)(wait_ms % 1000) * 1000000};
    while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) != 0)
        ;
    MPI_Send(&msg, 8, MPI_BYTE, 0, MSG_TAG, MPI_COMM_WORLD);
}

/* --variant NAME --wait-ms W, in any order; 0 or -1. */
static int parse_args(int argc, char **argv, const char **variant,
                      int *wait_ms)
{
    *variant = NULL;
    *wait_ms = -1;
    if (argc % 2 != 1)
        return -1;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--variant") == 0)
            *variant = argv[i + 1];
        else if (strcmp(argv[i], "--wait-ms") == 0)
            *wait_ms = atoi(argv[i + 1]);
        else
            return -1;
    }
    return *variant && *wait_ms >= 0 && *wait_ms <= MAX_WAIT_MS ? 0 : -1;
}

int main(int argc, char **argv)
{
    int rank, size, wait_ms;
    const char *variant;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (parse_args(argc, argv, &variant, &wait_ms) != 0 || size != 2) {
        if (rank == 0)
            fprintf(stderr, "mpi_idle_mpi: needs 2 ranks, --variant NAME "
                    "and --wait-ms 0..%d\n", MAX_WAIT_MS);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    alarm((unsigned)(wait_ms / 1000 + LIFETIME_EXTRA_S));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        wait_in_recv(variant);
    else
        send_late(wait_ms);
    MPI_Finalize();
    return 0;
}
