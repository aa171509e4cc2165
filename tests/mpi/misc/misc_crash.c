/* A rank that dies of a fault: rank 1 stores through a null pointer in
 * misc_crash_deref(), called from a user-level thread ("thread", on its
 * small stack) or from main ("main"), while the other ranks wait in
 * MPI_Recv for it. expect_crash.cmake checks that the rank reports its
 * number, the signal and the faulting function (the program is linked
 * with -rdynamic so that its own functions have dynamic symbols), and
 * that mpirun exits with 128 + SIGSEGV.
 */
#include <weft.h>

#include "mpi_test_util.h"

/* UBSan (in the ASan build) would stop the null store before it faults. */
#if defined(__has_attribute)
#if __has_attribute(no_sanitize_undefined)
#define NO_UBSAN __attribute__((no_sanitize_undefined))
#endif
#endif
#ifndef NO_UBSAN
#define NO_UBSAN
#endif

/* Not static and not inlined: its name must be in the backtrace. */
__attribute__((noinline)) NO_UBSAN void misc_crash_deref(volatile int *p)
{
    *p = 42;
}

__attribute__((noinline)) void *misc_crash_thread(void *arg)
{
    misc_crash_deref(arg);
    return NULL;
}

int main(int argc, char **argv)
{
    const char *where = argc > 1 ? argv[1] : "main";
    int rank, v = 0;
    weft_thread_t t;

    MPI_OK(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 1 && strcmp(where, "thread") == 0) {
        if (weft_thread_create(&t, NULL, misc_crash_thread, NULL) == 0)
            weft_thread_join(t, NULL);
    } else if (rank == 1) {
        misc_crash_deref(NULL);
    }
    MPI_Recv(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 1; /* not reached: rank 1 dies, and mpirun stops the others */
}
