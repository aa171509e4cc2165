/* What the one-sided test programs share. Plain MPI + C. */
#ifndef RMA_TEST_H
#define RMA_TEST_H

#include "mpi_test_util.h"

/* A counter fetched n times (MPI_Fetch_and_op with MPI_SUM of 1) hands
 * out 0..n-1, each once: all[] holds every fetch of every rank. */
static inline void rma_check_distinct(const long long *all, int n)
{
    char *seen = calloc((size_t)n, 1);

    CHECK(seen != NULL, "out of memory");
    for (int i = 0; i < n; i++) {
        CHECK(all[i] >= 0 && all[i] < n, "fetched %lld", all[i]);
        CHECK(!seen[all[i]], "value %lld fetched twice", all[i]);
        seen[all[i]] = 1;
    }
    free(seen);
}

#endif /* RMA_TEST_H */
