/* MPI_Allgather(v) schedules: Bruck's algorithm for short blocks, a direct
 * exchange for long ones and for the v form, a ring for the longest.
 *
 * Design.
 *  - Bruck (short): a scratch buffer holds blocks in the order
 *    rank, rank + 1, ... (mod n). In round j (distance d = 2^j) each rank
 *    sends its first min(d, n - d) blocks to rank - d and appends as many
 *    from rank + d. After ceil(log2 n) rounds it holds all n blocks,
 *    rotated by its rank; one local pass puts them in place. Works for
 *    any n, not only powers of two.
 *  - Direct (long, and allgatherv, up to ALLGATHER_DIRECT bytes of all
 *    blocks): every receive posted straight into the user's buffer, then
 *    this rank's block sent to every other rank, one wait. One round;
 *    each rank sends n - 1 blocks and receives n - 1, as in the ring.
 *  - Ring (beyond): n - 1 rounds; in round i each rank passes block
 *    (rank - i) to its right neighbour and receives block (rank - i - 1)
 *    from its left one, straight into the user's buffer. Every link
 *    carries each block once: bandwidth-optimal on a network, but each
 *    round waits for both neighbours, and when ranks share CPUs a round
 *    lasts until both got one. Measured with bench/osu_like's allgather,
 *    8 ranks on 2 CPUs (three alternating runs, a busy host): 256 KiB
 *    blocks 12.0-15.6 ms ring against 5.4-10.1 ms direct, 1 MiB 36.7-42.1
 *    against 19.2-33.0 ms (Open MPI 8.5 and 31.0 ms); on 4 ranks within
 *    the noise of each other.
 * Blocks travel with the receive datatype (rcount elements of rdt at
 * rank * rcount): every rank's block has that signature.
 *
 * Rejected: recursive doubling (powers of two only, or an extra phase);
 * gather + broadcast (twice the rounds, a hot root).
 *
 * Invariants: after the schedule block r of rbuf holds rank r's data.
 * Locking: none (messages through coll_util.c).
 */
#include "engine/coll/coll_impl.h"
#include "engine/objects/datatype.h"

/* Bytes of all blocks together from which the ring runs. Measured over TCP
 * on 2 vCPUs (back-to-back calls, block size: Bruck / ring, us): 4 ranks
 * 32 KiB 167 / 187, 256 KiB 1255 / 955; 8 ranks 4 KiB 333 / 566, 32 KiB
 * 1261 / 1609, 256 KiB 8302 / 6772: the ring wins from 1 MiB in all. */
#define ALLGATHER_LONG ((int64_t)512 * 1024)
/* Bytes of all blocks together from which the ring replaces the direct
 * exchange (as alltoall's limit, coll_alltoall.c). */
#define ALLGATHER_DIRECT ((int64_t)16 * 1024 * 1024)

static int64_t block_count(const wmpi_coll_args *a, int r)
{
    return a->rcounts ? a->rcounts[r] : a->rcount;
}

static char *block_at(const wmpi_coll_args *a, int r)
{
    int64_t disp = a->rdispls ? a->rdispls[r] : (int64_t)r * a->rcount;

    if (block_count(a, r) == 0) /* the buffer may be NULL: no arithmetic */
        return a->rbuf;
    return wmpi_coll_at(a->rbuf, disp, a->rdt);
}

static int own_block(const wmpi_coll_call *k, const wmpi_coll_args *a)
{
    if (a->sbuf == WMPI_IN_PLACE)
        return 0;
    return wmpi_coll_copy(a->sbuf, a->scount, a->sdt, block_at(a, k->rank),
                          block_count(a, k->rank), a->rdt);
}

static int ring(const wmpi_coll_call *k, const wmpi_coll_args *a)
{
    int n = k->size, me = k->rank, err = 0;
    int right = (me + 1) % n, left = (me + n - 1) % n;

    for (int i = 0; i < n - 1 && !err; i++) {
        int s = (me - i + n) % n, r = (me - i - 1 + 2 * n) % n;
        err = wmpi_coll_sendrecv(k, i, block_at(a, s), block_count(a, s), a->rdt, right,
                                 block_at(a, r), block_count(a, r), a->rdt, left);
    }
    return err;
}

static int direct(const wmpi_coll_call *k, const wmpi_coll_args *a)
{
    int n = k->size, me = k->rank;
    wmpi_coll_reqs q;

    if (wmpi_coll_reqs_init(&q, 2 * n) != 0)
        return WEFT_ENOMEM;
    for (int i = 1; i < n; i++) {
        int src = (me - i + n) % n;
        wmpi_coll_irecv(&q, k, 0, block_at(a, src), block_count(a, src), a->rdt, src);
    }
    for (int i = 1; i < n; i++)
        wmpi_coll_isend(&q, k, 0, block_at(a, me), block_count(a, me), a->rdt, (me + i) % n);
    return wmpi_coll_reqs_wait(&q);
}

/* Direct or ring, by the bytes of all blocks together. */
static int long_form(const wmpi_coll_call *k, const wmpi_coll_args *a, int64_t total)
{
    return total < wmpi_coll_limit(ALLGATHER_DIRECT) ? direct(k, a) : ring(k, a);
}

static int bruck_rounds(const wmpi_coll_call *k, const wmpi_coll_args *a, char *tmp)
{
    int n = k->size, me = k->rank, err = 0;

    for (int d = 1, step = 0; d < n && !err; d <<= 1, step++) {
        int64_t cnt = (d < n - d ? d : n - d) * (int64_t)a->rcount;
        err = wmpi_coll_sendrecv(k, step, tmp, cnt, a->rdt, (me - d + n) % n,
                                 wmpi_coll_at(tmp, d * (int64_t)a->rcount, a->rdt),
                                 cnt, a->rdt, (me + d) % n);
    }
    return err;
}

static int bruck(const wmpi_coll_call *k, const wmpi_coll_args *a)
{
    int n = k->size, me = k->rank, err;
    wmpi_coll_tmp t;

    err = wmpi_coll_tmp_alloc(&t, n * (int64_t)a->rcount, a->rdt);
    if (!err)
        err = wmpi_coll_copy(block_at(a, me), a->rcount, a->rdt, t.p, a->rcount, a->rdt);
    if (!err)
        err = bruck_rounds(k, a, t.p);
    for (int i = 1; i < n && !err; i++)
        err = wmpi_coll_copy(wmpi_coll_at(t.p, i * (int64_t)a->rcount, a->rdt),
                             a->rcount, a->rdt, block_at(a, (me + i) % n),
                             a->rcount, a->rdt);
    wmpi_coll_tmp_free(&t);
    return err;
}

int wmpi_coll_allgather_run(const wmpi_coll_call *k, const wmpi_coll_args *a)
{
    int64_t b = wmpi_datatype_bytes(a->rdt, a->rcount);
    int err;

    if (b < 0)
        return (int)b;
    err = own_block(k, a);
    if (err || k->size == 1 || b == 0)
        return err;
    if (b * k->size < wmpi_coll_limit(ALLGATHER_LONG))
        return bruck(k, a);
    return long_form(k, a, b * k->size);
}

int wmpi_coll_allgatherv_run(const wmpi_coll_call *k, const wmpi_coll_args *a)
{
    int64_t total = 0;
    int err = own_block(k, a);

    if (err || k->size == 1)
        return err;
    for (int r = 0; r < k->size; r++) {
        int64_t b = wmpi_datatype_bytes(a->rdt, block_count(a, r));
        if (b < 0)
            return (int)b;
        total += b;
    }
    return long_form(k, a, total);
}
