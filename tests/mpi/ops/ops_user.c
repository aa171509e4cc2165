/* User-defined ops: MPI_Op_create / MPI_Op_free / MPI_Op_commutative and
 * MPI_Reduce_local with them. The function gets the operands in order
 * (invec is the left one), the count and the very datatype handle the
 * caller passed (derived types included); MPI_Op_free sets the handle to
 * MPI_OP_NULL and refuses predefined and null ops with MPI_ERR_OP; and
 * several threads creating, using and freeing ops at once do not disturb
 * each other (MPI_THREAD_MULTIPLE).
 */
#include <pthread.h>

#include "mpi_test_util.h"

#define THREADS 4
#define ROUNDS 200

static MPI_Datatype seen_type;
static int seen_len;

/* Non-commutative: inout = 10 * in + inout, so operand order shows. */
static void shift_add(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    const int *a = in;
    int *b = inout;
    int size = 0, n;

    seen_type = *dt;
    seen_len = *len;
    MPI_Type_size(*dt, &size); /* MPI_INT or a type made of ints */
    n = *len * (size / (int)sizeof(int));
    for (int i = 0; i < n; i++)
        b[i] = 10 * a[i] + b[i];
}

/* Elementwise maximum of |x|, commutative, on doubles. */
static void abs_max(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    const double *a = in;
    double *b = inout;

    (void)dt;
    for (int i = 0; i < *len; i++) {
        double x = a[i] < 0 ? -a[i] : a[i], y = b[i] < 0 ? -b[i] : b[i];
        b[i] = x > y ? x : y;
    }
}

static void expect_class(int rc, int cls, const char *what)
{
    int got = -1;

    MPI_Error_class(rc, &got);
    CHECK(got == cls, "%s: error class %d, expected %d", what, got, cls);
}

static void order_and_arguments(void)
{
    MPI_Op op;
    MPI_Datatype pair;
    int a[4] = { 1, 2, 3, 4 }, b[4] = { 5, 6, 7, 8 }, commute = -1;

    MPI_OK(MPI_Op_create(shift_add, 0, &op));
    MPI_OK(MPI_Op_commutative(op, &commute));
    CHECK(commute == 0, "non-commutative op reports %d", commute);
    MPI_OK(MPI_Reduce_local(a, b, 4, MPI_INT, op));
    CHECK(b[0] == 15 && b[1] == 26 && b[2] == 37 && b[3] == 48,
          "user op result %d %d %d %d", b[0], b[1], b[2], b[3]);
    CHECK(seen_type == MPI_INT && seen_len == 4, "user op got len %d", seen_len);

    /* a derived type reaches the function as it is */
    MPI_OK(MPI_Type_contiguous(2, MPI_INT, &pair));
    MPI_OK(MPI_Type_commit(&pair));
    seen_len = -1;
    MPI_OK(MPI_Reduce_local(a, b, 2, pair, op));
    CHECK(seen_type == pair && seen_len == 2, "user op got the derived type, len %d",
          seen_len);
    CHECK(b[0] == 25 && b[3] == 88, "user op on derived type: %d %d", b[0], b[3]);
    MPI_OK(MPI_Type_free(&pair));

    MPI_OK(MPI_Op_free(&op));
    CHECK(op == MPI_OP_NULL, "MPI_Op_free leaves the handle MPI_OP_NULL");
}

static void free_errors(void)
{
    MPI_Op op = MPI_SUM, null = MPI_OP_NULL;

    expect_class(MPI_Op_free(&op), MPI_ERR_OP, "freeing MPI_SUM");
    CHECK(op == MPI_SUM, "a refused free changed the handle");
    expect_class(MPI_Op_free(&null), MPI_ERR_OP, "freeing MPI_OP_NULL");
}

/* Each thread: create a commutative op, reduce with it, free it. */
static void *worker(void *arg)
{
    int id = *(int *)arg;

    for (int r = 0; r < ROUNDS; r++) {
        MPI_Op op;
        double a[3] = { -id - r, 1, 0.5 }, b[3] = { 2, -3, -0.25 };
        int commute = 0;

        MPI_OK(MPI_Op_create(abs_max, 1, &op));
        MPI_OK(MPI_Op_commutative(op, &commute));
        CHECK(commute == 1, "commutative op reports %d", commute);
        MPI_OK(MPI_Reduce_local(a, b, 3, MPI_DOUBLE, op));
        CHECK(b[0] == (id + r > 2 ? id + r : 2) && b[1] == 3 && b[2] == 0.5,
              "thread %d round %d: %g %g %g", id, r, b[0], b[1], b[2]);
        MPI_OK(MPI_Op_free(&op));
    }
    return NULL;
}

static void threads(int provided)
{
    pthread_t t[THREADS];
    int ids[THREADS];

    if (provided < MPI_THREAD_MULTIPLE)
        return; /* an MPI built without thread support: nothing to test */
    for (int i = 0; i < THREADS; i++) {
        ids[i] = i;
        CHECK(pthread_create(&t[i], NULL, worker, &ids[i]) == 0, "pthread_create");
    }
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
}

int main(int argc, char **argv)
{
    int provided;

    MPI_OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    order_and_arguments();
    free_errors();
    threads(provided);
    MPI_OK(MPI_Finalize());
    return 0;
}
