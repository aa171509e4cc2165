/* Consumer of an installed Weft's MPI, built by ci/test both through
 * find_package(Weft) (Weft::weft_mpi, CMakeLists.txt beside this file) and
 * with `cc mpi_main.c $(pkg-config --cflags --libs weft-mpi)`, and run
 * without a launcher (a singleton): MPI_Init, an allreduce over the one rank, print
 * "ok". Exit status 0 on success. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int size = 0, in = 41, out = 0;

    if (MPI_Init(&argc, &argv) != MPI_SUCCESS)
        return 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (size != 1 || out != 41) {
        fprintf(stderr, "weft_mpi_consumer: size %d, sum %d\n", size, out);
        return 1;
    }
    MPI_Finalize();
    puts("ok");
    return 0;
}
