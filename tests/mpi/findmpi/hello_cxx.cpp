// The smallest MPI program in C++: each rank prints its rank and the job
// size (built with mpicxx, or through FindMPI's MPI::MPI_CXX).
#include <mpi.h>

#include <iostream>

int main(int argc, char **argv)
{
    int rank = -1, size = -1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    std::cout << "hello from rank " << rank << " of " << size << std::endl;
    MPI_Finalize();
    return 0;
}
