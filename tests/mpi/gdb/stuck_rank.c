/* A two-rank job that deadlocks on purpose, for the gdb extension's test
 * (test_gdb_stuck_rank.sh): each rank's main thread waits in MPI_Recv for
 * a message its peer never sends, beside a named user-level thread,
 * "releaser", that sleeps in a loop.
 *
 * The deadlock ends when the file named by argv[1] appears: each releaser
 * then sends the message its peer's main waits for, and the job exits 0.
 * So the test can check that a rank whose threads gdb inspected (and whose
 * registers it changed and put back) still runs correctly.
 *
 * Each rank prints "rank R pid P waiting" just before it blocks.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>
#include <weft.h>

static int rank;

static void *release_peer(void *path)
{
    while (access(path, F_OK) != 0)
        weft_sleep(20 * 1000 * 1000);
    int v = rank;
    MPI_Send(&v, 1, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, size, v = -1;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 2 || size != 2 || provided != MPI_THREAD_MULTIPLE) {
        fprintf(stderr, "stuck_rank: usage: mpirun -n 2 stuck_rank RELEASE_FILE\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    weft_thread_attr attr;
    weft_thread_attr_init(&attr);
    attr.name = "releaser";
    weft_thread_t releaser;
    if (weft_thread_create(&releaser, &attr, release_peer, argv[1]) != 0)
        MPI_Abort(MPI_COMM_WORLD, 2);
    printf("rank %d pid %ld waiting\n", rank, (long)getpid());
    fflush(stdout);
    MPI_Recv(&v, 1, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    weft_thread_join(releaser, NULL);
    MPI_Finalize();
    return v == 1 - rank ? 0 : 1;
}
