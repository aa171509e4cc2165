/* Arrays of C structs over MPI, as particle and database codes send them:
 * a struct datatype built from MPI_Get_address offsets
 * (MPI_Type_create_struct), resized to sizeof the struct
 * (MPI_Type_create_resized) so arrays of it line up, named, and used
 * in MPI_Gather, in reductions with user-defined ops, and in MPI_Pack /
 * MPI_Unpack.
 *
 *  - extent == sizeof(struct particle), size == the sum of the fields;
 *  - MPI_Gather of each rank's particles to rank 0, every field checked
 *    (the padding is never read);
 *  - MPI_Allreduce with a commutative user op keeping, element by
 *    element, the heaviest particle (ties: the lowest id);
 *  - a non-commutative user op, 2x2 integer matrix product modulo a prime
 *    on MPI_Type_contiguous(4, MPI_LONG): MPI_Reduce to a non-zero root
 *    and MPI_Scan must multiply in rank order, MPI_Op_commutative says 0;
 *  - MPI_Pack of a header int and the particles, sent as MPI_PACKED to
 *    the next rank, MPI_Unpack there (MPI_Pack_size bounds the buffer);
 *  - MPI_Reduce_local with the user op.
 */
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define APPS_NAME "records"
#include "apps_util.h"

#define NP 9 /* particles per rank */
#define PRIME 1000003L

struct particle {
    int id;
    double pos[3];
    char kind;
    double mass;
};

static MPI_Datatype particle_type(void)
{
    struct particle p;
    int lengths[4] = {1, 3, 1, 1};
    MPI_Aint base, disp[4];
    MPI_Datatype types[4] = {MPI_INT, MPI_DOUBLE, MPI_CHAR, MPI_DOUBLE}, tmp, t;

    MPI_Get_address(&p, &base);
    MPI_Get_address(&p.id, &disp[0]);
    MPI_Get_address(&p.pos[0], &disp[1]);
    MPI_Get_address(&p.kind, &disp[2]);
    MPI_Get_address(&p.mass, &disp[3]);
    for (int i = 0; i < 4; i++)
        disp[i] = MPI_Aint_diff(disp[i], base);
    MPI_Type_create_struct(4, lengths, disp, types, &tmp);
    MPI_Type_create_resized(tmp, 0, sizeof(struct particle), &t);
    MPI_Type_free(&tmp);
    MPI_Type_commit(&t);
    MPI_Type_set_name(t, "particle");
    return t;
}

static struct particle make(int rank, int i)
{
    struct particle p;
    memset(&p, 0xa5, sizeof p); /* junk in the padding */
    p.id = rank * 100 + i;
    for (int d = 0; d < 3; d++)
        p.pos[d] = rank + 0.25 * i + 0.125 * d;
    p.kind = (char)('a' + (rank + i) % 26);
    p.mass = (double)((rank * 7 + i * 3) % 11); /* many ties */
    return p;
}

static int same(const struct particle *a, const struct particle *b)
{
    return a->id == b->id && a->pos[0] == b->pos[0] && a->pos[1] == b->pos[1] &&
           a->pos[2] == b->pos[2] && a->kind == b->kind && a->mass == b->mass;
}

static void heaviest(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    struct particle *a = in, *b = inout;
    (void)dt;
    for (int i = 0; i < *len; i++)
        if (a[i].mass > b[i].mass || (a[i].mass == b[i].mass && a[i].id < b[i].id))
            b[i] = a[i];
}

/* inout = in x inout, 2x2 matrices mod PRIME (in comes from lower ranks) */
static void matmul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    long *a = in, *b = inout;
    (void)dt;
    for (int k = 0; k < *len; k++, a += 4, b += 4) {
        long c[4] = {(a[0] * b[0] + a[1] * b[2]) % PRIME, (a[0] * b[1] + a[1] * b[3]) % PRIME,
                     (a[2] * b[0] + a[3] * b[2]) % PRIME, (a[2] * b[1] + a[3] * b[3]) % PRIME};
        memcpy(b, c, sizeof c);
    }
}

static void matrix_of(int rank, long m[4])
{
    m[0] = rank + 1;
    m[1] = 2 * rank + 3;
    m[2] = rank % 3;
    m[3] = 5 + rank * rank;
}

static void check_layout(MPI_Datatype pt)
{
    MPI_Aint lb, extent, tlb, textent;
    int size, len;
    char name[MPI_MAX_OBJECT_NAME];

    MPI_Type_get_extent(pt, &lb, &extent);
    MPI_Type_get_true_extent(pt, &tlb, &textent);
    MPI_Type_size(pt, &size);
    MPI_Type_get_name(pt, name, &len);
    CHECK(lb == 0 && extent == (MPI_Aint)sizeof(struct particle), "extent %ld",
          (long)extent);
    CHECK(tlb == 0 && textent == (MPI_Aint)(offsetof(struct particle, mass) + sizeof(double)),
          "true extent %ld", (long)textent);
    CHECK(size == (int)(sizeof(int) + 4 * sizeof(double) + 1), "size %d", size);
    CHECK(len == 8 && strcmp(name, "particle") == 0, "name '%s'", name);
}

static void gather(MPI_Datatype pt, int rank, int size)
{
    struct particle mine[NP], *all = NULL;
    for (int i = 0; i < NP; i++)
        mine[i] = make(rank, i);
    if (rank == 0)
        all = malloc(sizeof(struct particle) * NP * size);
    MPI_Gather(mine, NP, pt, all, NP, pt, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        for (int q = 0; q < size; q++)
            for (int i = 0; i < NP; i++) {
                struct particle want = make(q, i);
                CHECK(same(&all[q * NP + i], &want), "particle %d of rank %d", i, q);
            }
        free(all);
    }
}

static void reduce_heaviest(MPI_Datatype pt, int rank, int size)
{
    struct particle mine[NP], best[NP];
    MPI_Op op;
    int commute = -1;

    MPI_Op_create(heaviest, 1, &op);
    MPI_Op_commutative(op, &commute);
    CHECK(commute == 1, "MPI_Op_commutative: %d", commute);
    for (int i = 0; i < NP; i++)
        mine[i] = make(rank, i);
    MPI_Allreduce(mine, best, NP, pt, op, MPI_COMM_WORLD);
    for (int i = 0; i < NP; i++) {
        struct particle want = make(0, i);
        for (int q = 1; q < size; q++) {
            struct particle c = make(q, i);
            if (c.mass > want.mass || (c.mass == want.mass && c.id < want.id))
                want = c;
        }
        CHECK(same(&best[i], &want), "heaviest %d: id %d, want %d", i, best[i].id,
              want.id);
    }
    /* MPI_Reduce_local: mine (as in) into a copy of best (as inout) */
    struct particle acc[NP];
    memcpy(acc, best, sizeof acc);
    MPI_Reduce_local(mine, acc, NP, pt, op);
    for (int i = 0; i < NP; i++)
        CHECK(same(&acc[i], &best[i]), "reduce_local changed element %d", i);
    MPI_Op_free(&op);
    CHECK(op == MPI_OP_NULL, "MPI_Op_free did not reset the handle");
}

static void reduce_matrices(int rank, int size)
{
    MPI_Datatype mat;
    MPI_Op op;
    long m[2][4], prod[2][4], scan[2][4];
    int commute = -1, root = size - 1;

    MPI_Type_contiguous(4, MPI_LONG, &mat);
    MPI_Type_commit(&mat);
    MPI_Op_create(matmul, 0, &op);
    MPI_Op_commutative(op, &commute);
    CHECK(commute == 0, "MPI_Op_commutative: %d", commute);
    matrix_of(rank, m[0]);
    matrix_of(rank + 17, m[1]);
    MPI_Reduce(m, prod, 2, mat, op, root, MPI_COMM_WORLD);
    MPI_Scan(m, scan, 2, mat, op, MPI_COMM_WORLD);
    for (int k = 0; k < 2; k++) {
        long acc[4] = {1, 0, 0, 1}, q[4];
        for (int r = 0; r < size; r++) {
            matrix_of(r + 17 * k, q);
            int one = 1;
            /* acc = acc x q: matmul computes inout = in x inout */
            matmul(acc, q, &one, &mat);
            memcpy(acc, q, sizeof acc);
            if (r == rank)
                CHECK(memcmp(scan[k], acc, sizeof acc) == 0,
                      "scan %d: {%ld %ld %ld %ld}", k, scan[k][0], scan[k][1],
                      scan[k][2], scan[k][3]);
        }
        if (rank == root)
            CHECK(memcmp(prod[k], acc, sizeof acc) == 0, "product %d: {%ld %ld %ld %ld}",
                  k, prod[k][0], prod[k][1], prod[k][2], prod[k][3]);
    }
    MPI_Op_free(&op);
    MPI_Type_free(&mat);
}

static void pack_ring(MPI_Datatype pt, int rank, int size)
{
    struct particle mine[NP], got[NP];
    int header = rank * 1000 + NP, hsize, psize, pos = 0, count;
    for (int i = 0; i < NP; i++)
        mine[i] = make(rank, i);
    MPI_Pack_size(1, MPI_INT, MPI_COMM_WORLD, &hsize);
    MPI_Pack_size(NP, pt, MPI_COMM_WORLD, &psize);
    int cap = hsize + psize;
    char *out = malloc(cap), *in = malloc(cap);
    MPI_Pack(&header, 1, MPI_INT, out, cap, &pos, MPI_COMM_WORLD);
    MPI_Pack(mine, NP, pt, out, cap, &pos, MPI_COMM_WORLD);
    CHECK(pos <= cap, "packed %d bytes into %d", pos, cap);

    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    MPI_Status st;
    MPI_Sendrecv(out, pos, MPI_PACKED, to, 7, in, cap, MPI_PACKED, from, 7,
                 MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_PACKED, &count);
    CHECK(count == pos, "received %d packed bytes, sent %d", count, pos);
    int at = 0, h;
    memset(got, 0, sizeof got);
    MPI_Unpack(in, count, &at, &h, 1, MPI_INT, MPI_COMM_WORLD);
    MPI_Unpack(in, count, &at, got, NP, pt, MPI_COMM_WORLD);
    CHECK(h == from * 1000 + NP && at == count, "header %d, consumed %d of %d", h, at,
          count);
    for (int i = 0; i < NP; i++) {
        struct particle want = make(from, i);
        CHECK(same(&got[i], &want), "unpacked particle %d", i);
    }
    free(out);
    free(in);
}

int main(int argc, char **argv)
{
    int size, rank;

    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Datatype pt = particle_type();
    check_layout(pt);
    gather(pt, rank, size);
    reduce_heaviest(pt, rank, size);
    reduce_matrices(rank, size);
    pack_ring(pt, rank, size);
    MPI_Type_free(&pt);
    if (rank == 0)
        printf("records: %d ranks, struct datatype, user ops and pack agree\n", size);
    MPI_Finalize();
    return 0;
}
