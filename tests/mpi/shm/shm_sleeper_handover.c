/* A message that lands while the I/O server's poll set changes hands
 * still wakes its receiver. Ranks pair up (rank ^ 1); in each rank
 * THREADS threads play ping-pong with their namesakes in the partner
 * (tag = thread index), ROUNDS small messages each, with a random gap
 * before each send: none, a short spin, or a nap of up to 300 us. With
 * two or more workers per rank, the threads block and wake at staggered
 * moments, so the workers take turns sleeping in the poll set: one wakes
 * and gives it up while another claims it and prepares its sleep, which
 * is where a doorbell left unarmed for the new sleeper would leave a
 * message unnoticed. A lost wake-up shows as a hang, which the alarm
 * turns into a failure; nothing is judged by how long a message took.
 *
 * Checks: every reply carries the round and thread it answers.
 *
 * The threads are Weft user-level threads when built against Weft's
 * mpi.h (WEFT_MPI defined), pthreads otherwise.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* clock_gettime, nanosleep */
#endif
#include <time.h>
#include <unistd.h>

#include "mpi_test_threads.h"
#include "shm_util.h"


#define THREADS 4
#define ROUNDS 1500
#define DEADLINE_S 25

static int rank, partner;

static int64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void nap_ns(int64_t ns)
{
#ifdef WEFT_MPI
    CHECK(weft_sleep(ns) == 0, "weft_sleep");
#else
    struct timespec ts = { (time_t)(ns / 1000000000), (long)(ns % 1000000000) };
    while (nanosleep(&ts, &ts) != 0) {
    }
#endif
}

/* None, a spin of 1-20 us, or a nap of 0-300 us. */
static void gap(uint64_t *rng)
{
    switch (shm_next(rng) % 3) {
    case 0:
        break;
    case 1: {
        int64_t end = now_ns() + (int64_t)shm_between(rng, 1000, 20000);
        while (now_ns() < end) {
        }
        break;
    }
    default:
        nap_ns((int64_t)shm_between(rng, 0, 300000));
    }
}

static void *player(void *arg)
{
    int me = (int)(intptr_t)arg;
    uint64_t rng = shm_key((uint64_t)rank, (uint64_t)me, 7, 0);
    int serve = rank < partner; /* the lower rank sends first */

    for (int i = 0; i < ROUNDS; i++) {
        int out[2] = { me, i }, in[2];
        if (serve) {
            gap(&rng);
            MPI_OK(MPI_Send(out, 2, MPI_INT, partner, me, MPI_COMM_WORLD));
        }
        MPI_OK(MPI_Recv(in, 2, MPI_INT, partner, me, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(in[0] == me && in[1] == i, "thread %d round %d: got thread %d round %d", me, i,
              in[0], in[1]);
        if (!serve) {
            gap(&rng);
            MPI_OK(MPI_Send(out, 2, MPI_INT, partner, me, MPI_COMM_WORLD));
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    mt_thread t[THREADS];
    int provided, size;

    alarm(DEADLINE_S);
    MPI_OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size % 2 == 0, "needs an even number of ranks, not %d", size);
    partner = rank ^ 1;
    for (int i = 0; i < THREADS; i++)
        mt_start(&t[i], player, i);
    for (int i = 0; i < THREADS; i++)
        mt_join(t[i]);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        printf("shm_sleeper_handover: %d ranks, %d threads each, %d rounds: all replies right\n",
               size, THREADS, ROUNDS);
    MPI_Finalize();
    return 0;
}
