/* A receiver that waits is woken by every message, however the sender's
 * timing falls: rank 0 receives a few thousand small messages, each in a
 * blocking call (MPI_Recv, MPI_Wait on an MPI_Irecv, MPI_Probe then
 * MPI_Recv, or MPI_Irecv, a nap, then MPI_Wait), while every other rank
 * sends them with random gaps: none, a busy spin of a few microseconds, or
 * a sleep of up to 2 ms - so messages land while the receiver polls, while
 * it is falling asleep and while it sleeps. Every ACK_EVERY messages the
 * sender itself blocks in MPI_Recv for an acknowledgement that rank 0 sends
 * after a random nap, so waking works both ways.
 *
 * Checks: per sender, messages arrive in order (MPI_ANY_SOURCE receives,
 * each source's next index tracked), with the size sent (MPI_Get_count)
 * and every byte of the pattern of (sender, index). A lost wake-up shows
 * as a hang, which the test's time limit turns into a failure; nothing is
 * judged by how long a message took.
 *
 * SHM_SLEEP_WAKE_SPINNERS=N (default 0) starts N pthreads per rank that
 * spin (pure computation, no MPI calls) for the whole exchange, so the
 * CPUs are busy while the ranks wait; the run is then half as long.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* clock_gettime, nanosleep */
#endif
#include <pthread.h>
#include <time.h>

#include "mpi_test_util.h"
#include "shm_util.h"

#define TOTAL_MSGS 3000 /* over all senders; half as many with spinners */
#define MAX_LEN 2048
#define ACK_EVERY 50
#define TAG_DATA 1
#define TAG_ACK 2
#define MAX_SPINNERS 8

static int rank, size, total_msgs = TOTAL_MSGS;
static int stop_spinning;

/* ------------------------------------------------------------ timing */

static double now_us(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static void nap_us(long us)
{
    struct timespec ts = { us / 1000000, us % 1000000 * 1000 };

    while (nanosleep(&ts, &ts) != 0) {
    }
}

static void spin_us(long us)
{
    double end = now_us() + (double)us;

    while (now_us() < end) {
    }
}

/* A random gap: none, a spin of 1-20 us, or a sleep of 0-2 ms. */
static void gap(uint64_t *rng)
{
    switch (shm_next(rng) % 4) {
    case 0:
        break;
    case 1:
        spin_us((long)shm_between(rng, 1, 20));
        break;
    default:
        nap_us((long)shm_between(rng, 0, 2000));
    }
}

static void *spinner(void *arg)
{
    volatile uint64_t x = (uint64_t)(intptr_t)arg;

    while (!__atomic_load_n(&stop_spinning, __ATOMIC_RELAXED))
        for (int i = 0; i < 1000; i++)
            x = shm_mix(x);
    return NULL;
}

/* ------------------------------------------------------------ messages */

static int msgs_from(int sender)
{
    int senders = size - 1;

    return total_msgs / senders + (sender - 1 < total_msgs % senders);
}

static size_t len_of(int sender, int i)
{
    uint64_t s = shm_key((uint64_t)sender, (uint64_t)i, 0x1e4, 0);

    return shm_next(&s) % 8 == 0 ? 0 : shm_between(&s, 1, MAX_LEN);
}

static uint64_t seed_of(int sender, int i)
{
    return shm_key((uint64_t)sender, (uint64_t)i, 0x5eed, 0);
}

static void sender(void)
{
    uint64_t rng = shm_key((uint64_t)rank, 0x5e4d, 0, 0);
    unsigned char buf[MAX_LEN];
    MPI_Request r;
    int ack;

    for (int i = 0; i < msgs_from(rank); i++) {
        size_t len = len_of(rank, i);
        shm_fill(buf, len, seed_of(rank, i));
        gap(&rng);
        if (i % 2) {
            MPI_OK(MPI_Send(buf, (int)len, MPI_BYTE, 0, TAG_DATA, MPI_COMM_WORLD));
        } else {
            MPI_OK(MPI_Isend(buf, (int)len, MPI_BYTE, 0, TAG_DATA, MPI_COMM_WORLD, &r));
            MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        }
        if ((i + 1) % ACK_EVERY == 0) {
            MPI_OK(MPI_Recv(&ack, 1, MPI_INT, 0, TAG_ACK, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(ack == i, "acknowledgement %d for message %d", ack, i);
        }
    }
}

/* One message from any sender, through one of four blocking patterns. */
static void receive_one(unsigned char *buf, uint64_t *rng, MPI_Status *st)
{
    MPI_Request r;
    int n;

    switch (shm_next(rng) % 4) {
    case 0:
        MPI_OK(MPI_Recv(buf, MAX_LEN, MPI_BYTE, MPI_ANY_SOURCE, TAG_DATA, MPI_COMM_WORLD, st));
        break;
    case 1:
        MPI_OK(MPI_Irecv(buf, MAX_LEN, MPI_BYTE, MPI_ANY_SOURCE, TAG_DATA, MPI_COMM_WORLD, &r));
        MPI_OK(MPI_Wait(&r, st));
        break;
    case 2:
        MPI_OK(MPI_Probe(MPI_ANY_SOURCE, TAG_DATA, MPI_COMM_WORLD, st));
        MPI_OK(MPI_Get_count(st, MPI_BYTE, &n));
        CHECK(n >= 0 && n <= MAX_LEN, "probed %d bytes", n);
        MPI_OK(MPI_Recv(buf, n, MPI_BYTE, st->MPI_SOURCE, TAG_DATA, MPI_COMM_WORLD, st));
        break;
    default:
        MPI_OK(MPI_Irecv(buf, MAX_LEN, MPI_BYTE, MPI_ANY_SOURCE, TAG_DATA, MPI_COMM_WORLD, &r));
        nap_us((long)shm_between(rng, 0, 500));
        MPI_OK(MPI_Wait(&r, st));
    }
}

static void receiver(void)
{
    uint64_t rng = shm_key(0x4ec, 0, 0, 0);
    unsigned char buf[MAX_LEN];
    int *next = calloc((size_t)size, sizeof *next), n;
    MPI_Status st;

    CHECK(next, "no memory");
    for (int k = 0; k < total_msgs; k++) {
        receive_one(buf, &rng, &st);
        int s = st.MPI_SOURCE, i;
        CHECK(s >= 1 && s < size && next[s] < msgs_from(s), "message %d from rank %d", k, s);
        i = next[s]++;
        MPI_OK(MPI_Get_count(&st, MPI_BYTE, &n));
        CHECK((size_t)n == len_of(s, i), "rank %d's message %d: %d bytes, %zu sent", s, i, n,
              len_of(s, i));
        size_t bad = shm_verify(buf, (size_t)n, seed_of(s, i));
        CHECK(bad == (size_t)-1, "rank %d's message %d (%d bytes): byte %zu differs", s, i, n,
              bad);
        if ((i + 1) % ACK_EVERY == 0) {
            gap(&rng);
            MPI_OK(MPI_Send(&i, 1, MPI_INT, s, TAG_ACK, MPI_COMM_WORLD));
        }
    }
    for (int s = 1; s < size; s++)
        CHECK(next[s] == msgs_from(s), "%d messages from rank %d, %d sent", next[s], s,
              msgs_from(s));
    free(next);
}

int main(int argc, char **argv)
{
    pthread_t spin[MAX_SPINNERS];
    const char *e = getenv("SHM_SLEEP_WAKE_SPINNERS");
    int nspin = e ? atoi(e) : 0, provided;

    MPI_OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided));
    CHECK(provided >= MPI_THREAD_FUNNELED, "provided %d", provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 2, "needs 2 ranks or more");
    CHECK(nspin >= 0 && nspin <= MAX_SPINNERS, "SHM_SLEEP_WAKE_SPINNERS=%d", nspin);
    if (nspin)
        total_msgs /= 2; /* the spinners slow every rank down */
    for (int i = 0; i < nspin; i++)
        CHECK(pthread_create(&spin[i], NULL, spinner, (void *)(intptr_t)(i + 1)) == 0,
              "pthread_create");
    if (rank == 0)
        receiver();
    else
        sender();
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    __atomic_store_n(&stop_spinning, 1, __ATOMIC_RELAXED);
    for (int i = 0; i < nspin; i++)
        pthread_join(spin[i], NULL);
    MPI_Finalize();
    if (rank == 0)
        printf("shm_sleep_wake: ok, %d messages, spinners per rank: %d\n", total_msgs, nspin);
    return 0;
}
