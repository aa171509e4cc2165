/* A manager/worker task farm, then sub-teams: the shapes of countless
 * MPI codes.
 *
 * Part 1: rank 0 hands out ranges of integers; a worker finds the primes
 * in its range and sends them back (a message of any length, tagged with
 * the task number). The manager takes results in whatever order they
 * come: MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG), MPI_Get_count to size the
 * buffer, MPI_Recv from status.MPI_SOURCE; it hands out tasks with
 * MPI_Isend (one outstanding per worker, completed by MPI_Wait before the
 * buffer is reused) and ends every worker with a zero-length STOP message.
 * Workers post MPI_Irecv for the next task and MPI_Isend their results.
 * With a single rank the manager does the work itself. Checked: the
 * primes below LIMIT are exactly those of a serial sieve (count and sum),
 * each task was done once, and every worker's count (MPI_Reduce) adds up.
 *
 * Part 2: MPI_Comm_split into teams of three (colour rank/3, key -rank so
 * ranks are reversed within a team); each team leader broadcasts a seed
 * (MPI_Bcast), the team reduces a function of it to the leader
 * (MPI_Reduce, MPI_SUM and MPI_MAXLOC on MPI_2INT), and the leaders'
 * results come together on world rank 0 through a second split
 * (MPI_UNDEFINED for the others: MPI_COMM_NULL).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define APPS_NAME "taskfarm"
#include "apps_util.h"

#define LIMIT 60000
#define CHUNK 1500
#define TAG_TASK 1
#define TAG_STOP 2
#define TAG_RESULT_BASE 100

static int is_prime(int n)
{
    if (n < 2)
        return 0;
    for (int d = 2; d * d <= n; d++)
        if (n % d == 0)
            return 0;
    return 1;
}

/* Primes in [lo, lo + CHUNK) into out; returns how many. */
static int primes_in(int lo, int *out)
{
    int k = 0;
    for (int n = lo; n < lo + CHUNK && n < LIMIT; n++)
        if (is_prime(n))
            out[k++] = n;
    return k;
}

static void serial_sieve(long *count, long long *sum)
{
    char *composite = calloc(LIMIT, 1);
    *count = 0;
    *sum = 0;
    for (long i = 2; i < LIMIT; i++) {
        if (composite[i])
            continue;
        ++*count;
        *sum += i;
        for (long j = i * i; j < LIMIT; j += i)
            composite[j] = 1;
    }
    free(composite);
}

#define NTASKS ((LIMIT + CHUNK - 1) / CHUNK)

static void manager(int size, long *count, long long *sum)
{
    int next = 0, done = 0, seen[NTASKS] = {0}, task_of[64], *buf;
    MPI_Request sends[64];
    int workers = size - 1;

    *count = 0;
    *sum = 0;
    if (workers == 0) { /* no workers: do it all here */
        buf = malloc(sizeof(int) * CHUNK);
        for (int t = 0; t < NTASKS; t++) {
            int k = primes_in(t * CHUNK, buf);
            for (int i = 0; i < k; i++)
                *sum += buf[i];
            *count += k;
        }
        free(buf);
        return;
    }
    /* prime the pump: one task per worker, or STOP if none is left */
    for (int w = 1; w <= workers; w++) {
        task_of[w] = next < NTASKS ? next++ : -1;
        MPI_Isend(&task_of[w], task_of[w] >= 0, MPI_INT, w,
                  task_of[w] >= 0 ? TAG_TASK : TAG_STOP, MPI_COMM_WORLD, &sends[w]);
    }
    while (done < NTASKS) {
        MPI_Status st;
        int n;
        MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_INT, &n);
        int w = st.MPI_SOURCE, t = st.MPI_TAG - TAG_RESULT_BASE;
        CHECK(w >= 1 && w <= workers && t >= 0 && t < NTASKS && !seen[t],
              "result from %d for task %d", w, t);
        buf = malloc(sizeof(int) * (n + 1));
        MPI_Recv(buf, n, MPI_INT, w, st.MPI_TAG, MPI_COMM_WORLD, &st);
        seen[t] = 1;
        done++;
        for (int i = 0; i < n; i++) {
            CHECK(buf[i] >= t * CHUNK && buf[i] < (t + 1) * CHUNK, "prime %d in task %d",
                  buf[i], t);
            *sum += buf[i];
        }
        *count += n;
        free(buf);
        /* the worker is free: its last task message was received, so the
         * send has completed or will; wait before reusing the buffer */
        MPI_Wait(&sends[w], MPI_STATUS_IGNORE);
        task_of[w] = next < NTASKS ? next++ : -1;
        MPI_Isend(&task_of[w], task_of[w] >= 0, MPI_INT, w,
                  task_of[w] >= 0 ? TAG_TASK : TAG_STOP, MPI_COMM_WORLD, &sends[w]);
    }
    MPI_Waitall(workers, &sends[1], MPI_STATUSES_IGNORE);
}

static long worker(void)
{
    int task, *out = malloc(sizeof(int) * CHUNK), *spare = malloc(sizeof(int) * CHUNK);
    MPI_Request result = MPI_REQUEST_NULL, next;
    MPI_Status st;
    long mine = 0;

    for (;;) {
        MPI_Irecv(&task, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &next);
        MPI_Wait(&next, &st);
        if (st.MPI_TAG == TAG_STOP) {
            int n;
            MPI_Get_count(&st, MPI_INT, &n);
            CHECK(n == 0, "STOP carried %d ints", n);
            break;
        }
        int k = primes_in(task * CHUNK, spare);
        mine += k;
        MPI_Wait(&result, MPI_STATUS_IGNORE); /* the previous result's buffer */
        int *t = out;
        out = spare;
        spare = t;
        MPI_Isend(out, k, MPI_INT, 0, TAG_RESULT_BASE + task, MPI_COMM_WORLD, &result);
    }
    MPI_Wait(&result, MPI_STATUS_IGNORE);
    free(out);
    free(spare);
    return mine;
}

static void teams(int rank, int size)
{
    MPI_Comm team, leaders;
    int trank, tsize, color = rank / 3;

    MPI_Comm_split(MPI_COMM_WORLD, color, -rank, &team);
    MPI_Comm_rank(team, &trank);
    MPI_Comm_size(team, &tsize);
    int last = color * 3 + 2 < size ? color * 3 + 2 : size - 1;
    CHECK(tsize == last - color * 3 + 1 && trank == last - rank,
          "team %d: rank %d of %d", color, trank, tsize);

    int seed = trank == 0 ? 1000 + color : -1;
    MPI_Bcast(&seed, 1, MPI_INT, 0, team);
    CHECK(seed == 1000 + color, "seed %d", seed);
    int value = seed * (trank + 1), sum = -1;
    struct { int value, rank; } in = {value % 7, trank}, best = {-1, -1};
    MPI_Reduce(&value, &sum, 1, MPI_INT, MPI_SUM, 0, team);
    MPI_Reduce(&in, &best, 1, MPI_2INT, MPI_MAXLOC, 0, team);

    MPI_Comm_split(MPI_COMM_WORLD, trank == 0 ? 0 : MPI_UNDEFINED, rank, &leaders);
    CHECK((trank == 0) == (leaders != MPI_COMM_NULL), "leaders comm");
    if (trank == 0) {
        CHECK(sum == seed * tsize * (tsize + 1) / 2, "team sum %d", sum);
        int bv = -1, br = -1;
        for (int r = 0; r < tsize; r++)
            if ((seed * (r + 1)) % 7 > bv) {
                bv = (seed * (r + 1)) % 7;
                br = r;
            }
        CHECK(best.value == bv && best.rank == br, "maxloc (%d,%d), want (%d,%d)",
              best.value, best.rank, bv, br);
        int teams_total = 0, lsize;
        MPI_Comm_size(leaders, &lsize);
        MPI_Reduce(&sum, &teams_total, 1, MPI_INT, MPI_SUM, 0, leaders);
        int lrank;
        MPI_Comm_rank(leaders, &lrank);
        if (lrank == 0) {
            int want = 0;
            for (int c = 0; c * 3 < size; c++) {
                int n = (c * 3 + 2 < size ? c * 3 + 2 : size - 1) - c * 3 + 1;
                want += (1000 + c) * n * (n + 1) / 2;
            }
            CHECK(lsize == (size + 2) / 3 && teams_total == want,
                  "%d leaders, total %d, want %d", lsize, teams_total, want);
        }
        MPI_Comm_free(&leaders);
    }
    MPI_Comm_free(&team);
}

int main(int argc, char **argv)
{
    int size, rank;

    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    CHECK(size <= 64, "at most 64 ranks");

    long count = 0, total = 0;
    long long sum = 0;
    if (rank == 0)
        manager(size, &count, &sum);
    else
        count = worker();
    /* the workers' counts add up to what the manager received */
    long mine = rank == 0 ? (size == 1 ? count : 0) : count;
    MPI_Reduce(&mine, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        long want_count;
        long long want_sum;
        serial_sieve(&want_count, &want_sum);
        CHECK(count == want_count && sum == want_sum && total == count,
              "%ld primes (sum %lld, workers say %ld), sieve: %ld (sum %lld)", count,
              sum, total, want_count, want_sum);
        printf("taskfarm: %d ranks found the %ld primes below %d\n", size, count,
               LIMIT);
    }
    teams(rank, size);
    MPI_Finalize();
    return 0;
}
