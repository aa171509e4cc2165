/* Dense targets: a target buffer that is count * size bytes in one piece
 * travels as a single run of bytes, found without stepping through its
 * elements (bench/rma measures the speed; this checks the bytes). Every
 * rank works on its right neighbour's window under fences:
 * - 4 MiB of MPI_BYTE put at an odd byte displacement, then got back;
 * - a derived target type whose data starts past the buffer (one block
 *   of 4 ints at int 3, two elements: ints 3..10): put, accumulate and
 *   get land on those ints and nowhere else;
 * - a put of count 0 changes nothing. */
#include "mpi_test_util.h"

#define BIG (4 << 20)
#define ODD 3          /* byte displacement of the big put */
#define WIN (BIG + 64)
#define NINTS 16       /* the ints of the derived-type cases */

static void fill(unsigned char *p, int n, int seed)
{
    for (int i = 0; i < n; i++)
        p[i] = (unsigned char)(i * 7 + seed);
}

static void check_bytes(const unsigned char *p, int n, int seed,
                        const char *what)
{
    for (int i = 0; i < n; i++)
        CHECK(p[i] == (unsigned char)(i * 7 + seed), "%s: byte %d is %d", what,
              i, p[i]);
}

/* 4 MiB of bytes to the right neighbour, at an odd displacement. */
static void big_bytes(MPI_Win win, unsigned char *mem, int rank, int size)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    unsigned char *src = malloc(BIG), *got = malloc(BIG);

    CHECK(src && got, "out of memory");
    fill(src, BIG, rank);
    memset(mem, 0xee, WIN);
    MPI_OK(MPI_Win_fence(0, win));
    MPI_OK(MPI_Put(src, BIG, MPI_BYTE, right, ODD, BIG, MPI_BYTE, win));
    MPI_OK(MPI_Win_fence(0, win));
    check_bytes(mem + ODD, BIG, left, "put");
    CHECK(mem[ODD - 1] == 0xee && mem[ODD + BIG] == 0xee,
          "put wrote outside its bytes");
    MPI_OK(MPI_Get(got, BIG, MPI_BYTE, left, ODD, BIG, MPI_BYTE, win));
    MPI_OK(MPI_Win_fence(0, win));
    check_bytes(got, BIG, (rank + size - 2) % size, "get");
    free(src);
    free(got);
}

static void check_ints(const int *ints, int base, const char *what)
{
    for (int i = 0; i < NINTS; i++) {
        int want = i >= 3 && i <= 10 ? base + i : -1;
        CHECK(ints[i] == want, "%s: int %d is %d, expected %d", what, i,
              ints[i], want);
    }
}

/* Put, accumulate and get through a target type that starts at int 3. */
static void offset_type(MPI_Win win, unsigned char *mem, int rank, int size)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int disp = 3, src[8], ones[8], got[8], ints[NINTS];
    MPI_Datatype t;

    MPI_OK(MPI_Type_create_indexed_block(1, 4, &disp, MPI_INT, &t));
    MPI_OK(MPI_Type_commit(&t));
    for (int i = 0; i < 8; i++) {
        src[i] = rank * 1000 + 3 + i;
        ones[i] = 1;
    }
    for (int i = 0; i < NINTS; i++)
        ints[i] = -1;
    memcpy(mem, ints, sizeof ints);
    MPI_OK(MPI_Win_fence(0, win));
    MPI_OK(MPI_Put(src, 8, MPI_INT, right, 0, 2, t, win));
    MPI_OK(MPI_Win_fence(0, win));
    memcpy(ints, mem, sizeof ints);
    check_ints(ints, left * 1000, "put");
    MPI_OK(MPI_Win_fence(0, win)); /* every rank read before it changes */
    MPI_OK(MPI_Accumulate(ones, 8, MPI_INT, right, 0, 2, t, MPI_SUM, win));
    MPI_OK(MPI_Win_fence(0, win));
    memcpy(ints, mem, sizeof ints);
    check_ints(ints, left * 1000 + 1, "accumulate");
    MPI_OK(MPI_Get(got, 8, MPI_INT, left, 0, 2, t, win));
    MPI_OK(MPI_Win_fence(0, win));
    for (int i = 0; i < 8; i++)
        CHECK(got[i] == ((rank + size - 2) % size) * 1000 + 1 + 3 + i,
              "get: int %d is %d", i, got[i]);
    MPI_Type_free(&t);
}

/* A put of nothing changes nothing. */
static void zero_count(MPI_Win win, unsigned char *mem, int rank, int size)
{
    int right = (rank + 1) % size, x = 42;

    memset(mem, 0x5a, 16);
    MPI_OK(MPI_Win_fence(0, win));
    MPI_OK(MPI_Put(&x, 0, MPI_INT, right, 0, 0, MPI_INT, win));
    MPI_OK(MPI_Win_fence(0, win));
    for (int i = 0; i < 16; i++)
        CHECK(mem[i] == 0x5a, "byte %d is %d after an empty put", i, mem[i]);
}

int main(int argc, char **argv)
{
    int rank, size;
    unsigned char *mem;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_OK(MPI_Win_allocate(WIN, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
                            &win));
    big_bytes(win, mem, rank, size);
    offset_type(win, mem, rank, size);
    zero_count(win, mem, rank, size);
    MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    MPI_OK(MPI_Win_free(&win));
    MPI_Finalize();
    if (rank == 0)
        printf("rma_dense: %d ranks ok\n", size);
    return 0;
}
