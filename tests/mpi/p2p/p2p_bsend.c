/* Buffered sends: MPI_Bsend and MPI_Ibsend copy the message into the
 * attached buffer, so the program may reuse its own buffer at once (small
 * and large messages); MPI_Buffer_detach waits until they left and gives
 * the buffer back; a buffer too small for a message makes MPI_Bsend
 * return MPI_ERR_BUFFER under MPI_ERRORS_RETURN.
 */
#include "mpi_test_util.h"

#define SMALL 1000
#define LARGE 200000 /* ints: above the eager limit */

static void sender(void)
{
    int size = 3 * (SMALL * 4 + MPI_BSEND_OVERHEAD) + 2 * (LARGE * 4 + MPI_BSEND_OVERHEAD);
    char *att = malloc((size_t)size), small_att[64];
    int *buf = malloc(LARGE * sizeof(int)), got_size, rc, cls;
    void *got;
    MPI_Request r;

    MPI_OK(MPI_Buffer_attach(att, size));
    for (int m = 0; m < 5; m++) {
        int n = m < 3 ? SMALL : LARGE;
        for (int k = 0; k < n; k++)
            buf[k] = m * 1000000 + k;
        if (m == 4)
            MPI_OK(MPI_Ibsend(buf, n, MPI_INT, 1, m, MPI_COMM_WORLD, &r));
        else
            MPI_OK(MPI_Bsend(buf, n, MPI_INT, 1, m, MPI_COMM_WORLD));
        if (m == 4)
            MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        memset(buf, 0xff, (size_t)n * sizeof(int)); /* the copy must be sent */
    }
    MPI_OK(MPI_Buffer_detach(&got, &got_size));
    CHECK(got == att && got_size == size, "detach returned %p/%d", got, got_size);

#ifdef WEFT_MPI
    /* A Bsend that does not fit is erroneous; the standard does not say
     * how it fails (Open MPI lets it through). Weft reports MPI_ERR_BUFFER. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_OK(MPI_Buffer_attach(small_att, sizeof small_att));
    rc = MPI_Bsend(buf, SMALL, MPI_INT, 1, 9, MPI_COMM_WORLD);
    MPI_OK(MPI_Error_class(rc, &cls));
    CHECK(cls == MPI_ERR_BUFFER, "Bsend into a small buffer: class %d", cls);
    MPI_OK(MPI_Buffer_detach(&got, &got_size));
#else
    (void)small_att;
    (void)rc;
    (void)cls;
#endif
    MPI_OK(MPI_Send(buf, 1, MPI_INT, 1, 10, MPI_COMM_WORLD));
    free(buf);
    free(att);
}

static void receiver(void)
{
    int *buf = malloc(LARGE * sizeof(int)), n;
    MPI_Status st;

    for (int m = 0; m < 5; m++) {
        MPI_OK(MPI_Recv(buf, LARGE, MPI_INT, 0, m, MPI_COMM_WORLD, &st));
        MPI_OK(MPI_Get_count(&st, MPI_INT, &n));
        CHECK(n == (m < 3 ? SMALL : LARGE), "message %d: %d ints", m, n);
        for (int k = 0; k < n; k++)
            CHECK(buf[k] == m * 1000000 + k, "message %d element %d is %d", m, k, buf[k]);
    }
    MPI_OK(MPI_Recv(buf, 1, MPI_INT, 0, 10, MPI_COMM_WORLD, &st));
    free(buf);
}

int main(int argc, char **argv)
{
    int rank;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        sender();
    else if (rank == 1)
        receiver();
    MPI_Finalize();
    if (rank == 0)
        printf("p2p_bsend: ok\n");
    return 0;
}
