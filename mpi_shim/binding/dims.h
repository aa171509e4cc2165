/* MPI_Dims_create's factorisation, shared with its unit test
 * (tests/unit/mpi/test_mpi_dims_*.c). */
#ifndef WMPI_DIMS_H
#define WMPI_DIMS_H

/* Fill the zero entries of dims[0..ndims) so that the product of all
 * entries is nnodes, the filled entries are as close to each other as
 * possible (smallest largest-minus-smallest; on a tie, the smallest
 * largest) and non-increasing; positive entries are kept. Returns 0, or
 * WEFT_EINVAL (dims unchanged) if nnodes < 1, ndims < 0, an entry is
 * negative, or nnodes is not a multiple of the product of the positive
 * entries. Blocks: no; pure computation. */
int wbind_dims_balance(int nnodes, int ndims, int *dims);

#endif /* WMPI_DIMS_H */
