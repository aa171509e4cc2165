/* Parallel sample sort of 64-bit keys, the classic MPI way: each rank
 * sorts its own keys (uneven counts, many duplicates), sends regular
 * samples to rank 0 (MPI_Gather), which picks splitters and broadcasts
 * them (MPI_Bcast); the keys are partitioned, the bucket sizes exchanged
 * with MPI_Alltoall and the keys themselves with MPI_Alltoallv, and each
 * rank merges what it received by sorting again.
 *
 * Checks, all exact: every rank's keys are sorted and not smaller than
 * the largest key of the ranks before it (MPI_Exscan with MPI_MAX); the
 * key count and two order-independent fingerprints of the multiset (sum
 * and xor of a hash of every key: MPI_Allreduce with MPI_SUM and
 * MPI_BXOR on MPI_UINT64_T) are unchanged; and rank 0 gathers the sorted
 * keys (MPI_Gatherv) and compares them with a serial sort of the same
 * input, which it regenerates.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define APPS_NAME "samplesort"
#include "apps_util.h"

static int compare(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static uint64_t mix(uint64_t x)
{
    x ^= x >> 31;
    x *= 0x9e3779b97f4a7c15ull;
    x ^= x >> 29;
    x *= 0xbf58476d1ce4e5b9ull;
    return x ^ (x >> 32);
}

/* Rank q's input: its count, and its keys (skewed, with duplicates). */
static int input_count(int q)
{
    return 3000 + 977 * q - (q % 3) * 1500;
}

static void input_keys(int q, uint64_t *keys)
{
    int n = input_count(q);
    for (int i = 0; i < n; i++) {
        uint64_t h = mix((uint64_t)q << 32 | (uint64_t)i);
        /* a quarter of the keys from a tiny range: many equal keys */
        keys[i] = (h & 3) == 0 ? h % 97 : h >> (h % 17);
    }
}

int main(int argc, char **argv)
{
    int size, rank;

    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    int n = input_count(rank);
    uint64_t *keys = malloc(sizeof(uint64_t) * n);
    input_keys(rank, keys);

    /* fingerprints of the input multiset */
    uint64_t fp_local[3] = {(uint64_t)n, 0, 0}, fp_in[3], fp_out[3];
    for (int i = 0; i < n; i++) {
        fp_local[1] += mix(keys[i] + 1);
        fp_local[2] ^= mix(keys[i] * 3 + 7);
    }
    MPI_Allreduce(fp_local, fp_in, 2, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&fp_local[2], &fp_in[2], 1, MPI_UINT64_T, MPI_BXOR,
                  MPI_COMM_WORLD);

    /* local sort, regular samples, splitters */
    qsort(keys, n, sizeof *keys, compare);
    int s = size - 1;
    uint64_t *samples = malloc(sizeof(uint64_t) * (s + 1));
    uint64_t *all_samples = NULL, *splitters = malloc(sizeof(uint64_t) * (s + 1));
    for (int i = 0; i < s; i++)
        samples[i] = keys[(long)n * (i + 1) / (s + 1)];
    if (rank == 0)
        all_samples = malloc(sizeof(uint64_t) * (size * s + 1));
    MPI_Gather(samples, s, MPI_UINT64_T, all_samples, s, MPI_UINT64_T, 0,
               MPI_COMM_WORLD);
    if (rank == 0) {
        qsort(all_samples, (size_t)size * s, sizeof(uint64_t), compare);
        for (int i = 0; i < s; i++)
            splitters[i] = all_samples[i * size + size / 2];
    }
    MPI_Bcast(splitters, s, MPI_UINT64_T, 0, MPI_COMM_WORLD);

    /* buckets: keys <= splitter[i] (and > splitter[i-1]) go to rank i */
    int *send_counts = calloc(size, sizeof(int)), *send_displs = malloc(sizeof(int) * size);
    int *recv_counts = malloc(sizeof(int) * size), *recv_displs = malloc(sizeof(int) * size);
    for (int i = 0, b = 0; i < n; i++) {
        while (b < s && keys[i] > splitters[b])
            b++;
        send_counts[b]++;
    }
    MPI_Alltoall(send_counts, 1, MPI_INT, recv_counts, 1, MPI_INT, MPI_COMM_WORLD);
    int total = 0;
    for (int q = 0, at = 0; q < size; q++) {
        send_displs[q] = at;
        at += send_counts[q];
        recv_displs[q] = total;
        total += recv_counts[q];
    }
    uint64_t *mine = malloc(sizeof(uint64_t) * (total + 1));
    MPI_Alltoallv(keys, send_counts, send_displs, MPI_UINT64_T, mine, recv_counts,
                  recv_displs, MPI_UINT64_T, MPI_COMM_WORLD);
    qsort(mine, total, sizeof *mine, compare);

    /* sorted here, and nothing before us is larger than our first key */
    for (int i = 1; i < total; i++)
        CHECK(mine[i - 1] <= mine[i], "rank %d: not sorted at %d", rank, i);
    uint64_t my_max = total ? mine[total - 1] : 0, before_max = 0;
    MPI_Exscan(&my_max, &before_max, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    if (rank > 0 && total > 0)
        CHECK(before_max <= mine[0], "rank %d: %llu before, first key %llu", rank,
              (unsigned long long)before_max, (unsigned long long)mine[0]);

    fp_local[0] = (uint64_t)total;
    fp_local[1] = fp_local[2] = 0;
    for (int i = 0; i < total; i++) {
        fp_local[1] += mix(mine[i] + 1);
        fp_local[2] ^= mix(mine[i] * 3 + 7);
    }
    MPI_Allreduce(fp_local, fp_out, 2, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&fp_local[2], &fp_out[2], 1, MPI_UINT64_T, MPI_BXOR,
                  MPI_COMM_WORLD);
    CHECK(memcmp(fp_in, fp_out, sizeof fp_in) == 0,
          "the keys changed: count %llu -> %llu", (unsigned long long)fp_in[0],
          (unsigned long long)fp_out[0]);

    /* rank 0: the gathered result equals a serial sort of the input */
    int *counts = NULL, *displs = NULL;
    uint64_t *sorted = NULL;
    if (rank == 0) {
        counts = malloc(sizeof(int) * size);
        displs = malloc(sizeof(int) * size);
    }
    MPI_Gather(&total, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    long all = 0;
    if (rank == 0) {
        for (int q = 0; q < size; q++) {
            displs[q] = (int)all;
            all += counts[q];
        }
        CHECK(all == (long)fp_in[0], "%ld keys gathered", all);
        sorted = malloc(sizeof(uint64_t) * all);
    }
    MPI_Gatherv(mine, total, MPI_UINT64_T, sorted, counts, displs, MPI_UINT64_T, 0,
                MPI_COMM_WORLD);
    if (rank == 0) {
        uint64_t *ref = malloc(sizeof(uint64_t) * all);
        for (int q = 0, at = 0; q < size; q++) {
            input_keys(q, &ref[at]);
            at += input_count(q);
        }
        qsort(ref, all, sizeof *ref, compare);
        for (long i = 0; i < all; i++)
            CHECK(sorted[i] == ref[i], "key %ld: %llu, serial %llu", i,
                  (unsigned long long)sorted[i], (unsigned long long)ref[i]);
        int least = counts[0], most = counts[0];
        for (int q = 1; q < size; q++) {
            least = counts[q] < least ? counts[q] : least;
            most = counts[q] > most ? counts[q] : most;
        }
        printf("samplesort: %d ranks sorted %ld keys (buckets %d..%d), equal to "
               "the serial sort\n", size, all, least, most);
        free(ref);
        free(sorted);
        free(counts);
        free(displs);
        free(all_samples);
    }

    free(keys);
    free(samples);
    free(splitters);
    free(send_counts);
    free(send_displs);
    free(recv_counts);
    free(recv_displs);
    free(mine);
    MPI_Finalize();
    return 0;
}
