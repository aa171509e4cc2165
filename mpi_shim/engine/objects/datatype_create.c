/* Derived datatypes: construction from MPI_Type_get_contents-style
 * arguments (life and names: datatype_life.c; the array constructors:
 * datatype_array.c).
 *
 * Design: every constructor is one entry point, wmpi_datatype_create(),
 * taking the combiner and its arguments exactly as MPI_Type_get_contents
 * returns them (datatype.h), so the bindings only marshal and
 * MPI_Type_get_envelope/get_contents are direct reads of the stored copy.
 * Each combiner enumerates its blocks in type-map order -- (child type,
 * repetitions, byte displacement) -- into a builder that accumulates size,
 * basic elements, bounds and the flattened segments (datatype_impl.h).
 * Bounds follow MPI's lb/ub markers as Open MPI does: resized and subarray
 * types set both explicitly and, inside another type, their bounds win
 * over those of plain data; without markers the extent is rounded up to
 * the largest alignment of the basic types (struct {double; char} spans
 * 16 bytes). A block adds the bounds of the entries it holds (MPI-3.1
 * 4.1): a block of length 0, or of a type with neither data nor markers,
 * holds none and adds none. A resized extent may be negative; copies of
 * such a type run downwards, and the bounds of a block of them are taken
 * over all copies (as MPICH's lbub test expects: 3 copies of lb 6, ub -3
 * span -12 .. -3). Every displacement and bound is computed with overflow
 * checks; a type whose bounds or extent leave int64_t is rejected.
 *
 * Trade-off: flattening costs memory per type (32 bytes a segment), but
 * merged regular blocks keep common types small (a vector or a 2-D
 * subarray is one segment, a 3-D subarray one per plane) and make packing
 * a tight memcpy loop with no recursion.
 * Rejected: a recursive dataloop walked at pack time (no flattening cost,
 * but every pack interprets the tree; more code for this budget);
 * counting an empty child's bounds where it sits, as Open MPI 4.1 does (an
 * hindexed of zero-length blocks at LLONG_MAX in a struct then spans
 * nearly 2^63 bytes, and packing two of them faults).
 *
 * Invariants: a derived type is immutable once created, but for
 * `committed` and `name`; it holds a reference to every type in its
 * arguments.
 * Locking: none (a type under construction belongs to its caller).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "engine/objects/datatype_impl.h"

/* ------------------------------------------------------------- builder */

typedef wmpi_build build;

/* What the builder needs of a child type. */
typedef struct child {
    int64_t lb, ub, true_lb, true_ub, size, nbasic, align;
    int marked;
    wmpi_datatype *basic;
} child;

static int64_t align_of(const wmpi_datatype *dt)
{
    int64_t a = 1;

    if (dt->align)
        return dt->align;
    while (a < 16 && dt->extent % (a * 2) == 0)
        a *= 2;
    return a;
}

static void child_of(const wmpi_datatype *dt, child *c)
{
    const struct wmpi_dtd *d = dt->derived;
    wmpi_bounds b;

    if (d) {
        *c = (child){ d->lb, d->ub, d->true_lb, d->true_ub, d->size,
                      d->nbasic, d->align, d->lb_marked, d->basic };
        return;
    }
    wmpi_datatype_bounds(dt, &b);
    *c = (child){ 0, b.extent, 0, b.true_extent, (int64_t)dt->size,
                  dt->basic, align_of(dt), 0, (wmpi_datatype *)dt };
}

static int64_t mul(build *b, int64_t x, int64_t y)
{
    int64_t r;

    if (__builtin_mul_overflow(x, y, &r)) {
        b->err = WEFT_EINVAL;
        return 0;
    }
    return r;
}

static int64_t add(build *b, int64_t x, int64_t y)
{
    int64_t r;

    if (__builtin_add_overflow(x, y, &r)) {
        b->err = WEFT_EINVAL;
        return 0;
    }
    return r;
}

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

/* Merge s into the last segment if it continues it; 1 if merged. The
 * distances are checked: segments of far-apart blocks never merge. */
static int merge(wmpi_seg *p, const wmpi_seg *s)
{
    int64_t gap, next;

    if (s->count != 1 || __builtin_sub_overflow(s->disp, p->disp, &gap))
        return 0;
    if (p->count == 1 && gap == p->len) {
        p->len += s->len;
        return 1;
    }
    if (p->len != s->len)
        return 0;
    if (p->count == 1) {
        p->stride = gap;
        p->count = 2;
        return 1;
    }
    if (!__builtin_mul_overflow(p->count, p->stride, &next) && gap == next) {
        p->count++;
        return 1;
    }
    return 0;
}

static void append(build *b, wmpi_seg s)
{
    wmpi_seg *v;

    if (s.count > 1 && s.stride == s.len) {
        s.len *= s.count;
        s.count = 1;
    }
    if (b->n > 0 && merge(&b->v[b->n - 1], &s))
        return;
    if (b->n == b->cap) {
        if (b->cap >= WMPI_MAX_SEGS) {
            b->err = WEFT_ENOMEM;
            return;
        }
        b->cap = b->cap ? b->cap * 2 : 8;
        v = realloc(b->v, (size_t)b->cap * sizeof *v);
        if (!v) {
            b->err = WEFT_ENOMEM;
            return;
        }
        b->v = v;
    }
    b->v[b->n++] = s;
}

/* The segments of `reps` copies of dt, the first at byte `disp`, each
 * `ext` bytes after the last (before it, if ext < 0). block() has checked
 * that every copy's data lies in int64_t range, so the sums below (start
 * of the first copy's segment, then the copy's offset) cannot overflow. */
static void emit(build *b, const wmpi_datatype *dt, int64_t reps,
                 int64_t disp, int64_t ext)
{
    wmpi_seg tmp[2], s;
    int64_t n;
    const wmpi_seg *cs = wmpi_datatype_segs(dt, tmp, &n);

    if (n == 1 && cs[0].count == 1) {
        append(b, (wmpi_seg){ disp + cs[0].disp, cs[0].len, reps,
                              reps > 1 ? ext : 0 });
        return;
    }
    for (int64_t m = 0; m < reps && !b->err; m++) {
        for (int64_t j = 0; j < n && !b->err; j++) {
            s = cs[j];
            s.disp = (s.disp + disp) + m * ext;
            append(b, s);
        }
    }
}

/* Widen [*lo, *hi] (if *have, else set it) to [lo, hi]. */
static void widen(int *have, int64_t *lo, int64_t *hi, int64_t l, int64_t h)
{
    *lo = *have ? min64(*lo, l) : l;
    *hi = *have ? max64(*hi, h) : h;
    *have = 1;
}

/* The bounds of copies of c starting at bytes first .. last (first <= last).
 * The type map has only what the copies hold: markers if c is marked, data
 * if it has any. A child with neither (a type of zero-length blocks, an
 * empty vector) adds no entry, so it adds no bound, wherever it is. */
static void bounds_of_block(build *b, const child *c, int64_t first,
                            int64_t last)
{
    int64_t l = add(b, first, c->lb), h = add(b, last, c->ub);
    int64_t tl = add(b, first, c->true_lb), th = add(b, last, c->true_ub);

    if (b->err)
        return;
    if (c->marked)
        widen(&b->marked, &b->mlb, &b->mub, l, h);
    else if (c->size > 0)
        widen(&b->any, &b->lb, &b->ub, l, h);
    if (c->size > 0)
        widen(&b->data, &b->true_lb, &b->true_ub, tl, th);
}

static void basic_of_block(build *b, const child *c)
{
    if (c->size == 0)
        return;
    if (!c->basic || (b->basic && b->basic != c->basic))
        b->mixed = 1;
    b->basic = c->basic;
}

/* Add `reps` consecutive copies of dt at byte `disp` to the type map:
 * copy m starts at disp + m * extent, so a negative extent (a resized
 * type) lays them out downwards and the last copy is the lowest. */
static void block(build *b, const wmpi_datatype *dt, int64_t reps,
                  int64_t disp)
{
    child c;
    int64_t ext, last;

    if (reps <= 0 || b->err)
        return;
    child_of(dt, &c);
    ext = c.ub - c.lb;
    last = add(b, disp, mul(b, reps - 1, ext));
    b->size = add(b, b->size, mul(b, reps, c.size));
    b->nbasic = add(b, b->nbasic, mul(b, reps, c.nbasic));
    if (b->err)
        return;
    bounds_of_block(b, &c, min64(disp, last), max64(disp, last));
    if (b->err)
        return;
    basic_of_block(b, &c);
    b->align = max64(b->align, c.align);
    if (c.size > 0)
        emit(b, dt, reps, disp, ext);
}

void wmpi_build_block(build *b, const wmpi_datatype *dt, int64_t reps,
                      int64_t disp)
{
    block(b, dt, reps, disp);
}

int64_t wmpi_build_mul(build *b, int64_t x, int64_t y) { return mul(b, x, y); }
int64_t wmpi_build_add(build *b, int64_t x, int64_t y) { return add(b, x, y); }

void wmpi_build_bounds(build *b, int64_t lb, int64_t ub)
{
    b->mlb = lb;
    b->mub = ub;
    b->marked = 1;
}

int64_t wmpi_datatype_extent64(const wmpi_datatype *dt)
{
    child c;

    child_of(dt, &c);
    return c.ub - c.lb;
}

/* ------------------------------------------------------ combiners */

static int check_counts(const int *v, int n)
{
    for (int i = 0; i < n; i++)
        if (v[i] < 0)
            return WEFT_EINVAL;
    return 0;
}

static int build_vector(build *b, const wmpi_type_args *a)
{
    int count = a->ints[0], bl = a->ints[1];
    wmpi_datatype *old = a->types[0];
    int64_t stride = a->combiner == WMPI_COMBINER_VECTOR
                         ? mul(b, a->ints[2], wmpi_datatype_extent64(old)) : a->aints[0];

    if (count < 0 || bl < 0)
        return WEFT_EINVAL;
    for (int i = 0; i < count && !b->err; i++)
        block(b, old, bl, mul(b, i, stride));
    return 0;
}

/* INDEXED, HINDEXED, INDEXED_BLOCK, HINDEXED_BLOCK, STRUCT. */
static int build_indexed(build *b, const wmpi_type_args *a)
{
    int c = a->combiner, count = a->ints[0];
    int each = c == WMPI_COMBINER_INDEXED_BLOCK ||
               c == WMPI_COMBINER_HINDEXED_BLOCK;
    const int *bl = &a->ints[1];
    const int *idisp = each ? &a->ints[2] : &a->ints[1 + count];
    int bytes = c != WMPI_COMBINER_INDEXED && c != WMPI_COMBINER_INDEXED_BLOCK;
    wmpi_datatype *old;
    int64_t disp;

    if (count < 0 || check_counts(bl, each ? 1 : count))
        return WEFT_EINVAL;
    for (int i = 0; i < count && !b->err; i++) {
        old = a->types[c == WMPI_COMBINER_STRUCT ? i : 0];
        disp = bytes ? a->aints[i] : mul(b, idisp[i], wmpi_datatype_extent64(old));
        block(b, old, bl[each ? 0 : i], disp);
    }
    return 0;
}

static int build_args(build *b, const wmpi_type_args *a)
{
    switch (a->combiner) {
    case WMPI_COMBINER_DUP:
        block(b, a->types[0], 1, 0);
        return 0;
    case WMPI_COMBINER_CONTIGUOUS:
        if (a->ints[0] < 0)
            return WEFT_EINVAL;
        block(b, a->types[0], a->ints[0], 0);
        return 0;
    case WMPI_COMBINER_VECTOR:
    case WMPI_COMBINER_HVECTOR:
        return build_vector(b, a);
    case WMPI_COMBINER_INDEXED:
    case WMPI_COMBINER_HINDEXED:
    case WMPI_COMBINER_INDEXED_BLOCK:
    case WMPI_COMBINER_HINDEXED_BLOCK:
    case WMPI_COMBINER_STRUCT:
        return build_indexed(b, a);
    case WMPI_COMBINER_SUBARRAY:
        return wmpi_build_subarray(b, a);
    case WMPI_COMBINER_DARRAY:
        return wmpi_build_darray(b, a);
    case WMPI_COMBINER_RESIZED:
        block(b, a->types[0], 1, 0);
        wmpi_build_bounds(b, a->aints[0], add(b, a->aints[0], a->aints[1]));
        return 0;
    default:
        return WEFT_EINVAL;
    }
}

/* ------------------------------------------------------------ objects */

/* Copy a's arrays into one allocation owned by d; retain its types. */
static int copy_args(struct wmpi_dtd *d, const wmpi_type_args *a)
{
    size_t ni = (size_t)a->ni * sizeof(int), na = (size_t)a->na * sizeof(int64_t);
    size_t nt = (size_t)a->nt * sizeof(wmpi_datatype *);
    char *m = malloc(na + nt + ni + 1);

    if (!m)
        return WEFT_ENOMEM;
    if (na) /* (memcpy from NULL is undefined even for 0 bytes) */
        memcpy(m, a->aints, na);
    if (nt)
        memcpy(m + na, a->types, nt);
    if (ni)
        memcpy(m + na + nt, a->ints, ni);
    d->args = *a;
    d->args.aints = (const int64_t *)m;
    d->args.types = (wmpi_datatype *const *)(m + na);
    d->args.ints = (const int *)(m + na + nt);
    for (int i = 0; i < a->nt; i++)
        wmpi_datatype_retain(a->types[i]);
    return 0;
}

/* The number of ints, aints and types `a`'s combiner takes (datatype.h),
 * or -1 if it is unknown or its leading count is negative. */
static int shape(const wmpi_type_args *a, int *ni, int *na, int *nt)
{
    int n = a->ni > 0 ? a->ints[0] : 0;

    *ni = *na = 0;
    *nt = 1;
    switch (a->combiner) {
    case WMPI_COMBINER_DUP:            return 0;
    case WMPI_COMBINER_CONTIGUOUS:     *ni = 1; return 0;
    case WMPI_COMBINER_VECTOR:         *ni = 3; return 0;
    case WMPI_COMBINER_HVECTOR:        *ni = 2; *na = 1; return 0;
    case WMPI_COMBINER_RESIZED:        *na = 2; return 0;
    default:                           break;
    }
    if (n < 0)
        return -1;
    switch (a->combiner) {
    case WMPI_COMBINER_INDEXED:        *ni = 1 + 2 * n; return 0;
    case WMPI_COMBINER_HINDEXED:       *ni = 1 + n; *na = n; return 0;
    case WMPI_COMBINER_INDEXED_BLOCK:  *ni = 2 + n; return 0;
    case WMPI_COMBINER_HINDEXED_BLOCK: *ni = 2; *na = n; return 0;
    case WMPI_COMBINER_STRUCT:         *ni = 1 + n; *na = n; *nt = n; return 0;
    case WMPI_COMBINER_SUBARRAY:       *ni = 2 + 3 * n; return 0;
    case WMPI_COMBINER_DARRAY:
        n = a->ni > 2 ? a->ints[2] : -1;
        if (n < 0)
            return -1;
        *ni = 4 + 4 * n;
        return 0;
    default:                           return -1;
    }
}

static int args_ok(const wmpi_type_args *a)
{
    int ni, na, nt;

    if (a->ni < 0 || a->na < 0 || a->nt < 0 || (a->ni && !a->ints))
        return 0;
    if (shape(a, &ni, &na, &nt) < 0 || ni != a->ni || na != a->na || nt != a->nt)
        return 0;
    if ((a->na && !a->aints) || (a->nt && !a->types))
        return 0;
    for (int i = 0; i < a->nt; i++)
        if (!a->types[i])
            return 0;
    return 1;
}

/* The type's final lb and ub (markers win over data; without markers the
 * extent is rounded up to the alignment) into b->lb / b->ub, and its true
 * bounds into b->true_lb / true_ub. WEFT_EINVAL if the extent or the true
 * extent does not fit in an MPI_Aint: such a type could not be described,
 * let alone addressed. */
static int settle(build *b)
{
    int64_t ext, pad, true_ext;

    b->align = b->align ? b->align : 1;
    if (b->marked) {
        b->lb = b->mlb;
        b->ub = b->mub;
    } else if (!b->any) {
        b->lb = b->ub = 0;
    }
    if (!b->data)
        b->true_lb = b->true_ub = 0;
    if (__builtin_sub_overflow(b->ub, b->lb, &ext) ||
        __builtin_sub_overflow(b->true_ub, b->true_lb, &true_ext))
        return WEFT_EINVAL;
    pad = b->marked || ext % b->align == 0 ? 0 : b->align - ext % b->align;
    if (__builtin_add_overflow(b->ub, pad, &b->ub) ||
        __builtin_add_overflow(ext, pad, &ext))
        return WEFT_EINVAL;
    return 0;
}

static void finish(wmpi_derived_type *t, const build *b)
{
    struct wmpi_dtd *d = &t->d;

    d->refs = 1;
    d->lb_marked = d->ub_marked = (uint8_t)b->marked;
    d->lb = b->lb;
    d->ub = b->ub;
    d->align = b->align;
    d->true_lb = b->true_lb;
    d->true_ub = b->true_ub;
    d->size = b->size;
    d->nbasic = b->nbasic;
    d->basic = b->mixed ? NULL : b->basic;
    d->segs = b->v;
    d->nsegs = b->n;
    t->dt.size = (size_t)d->size;
    t->dt.extent = d->ub - d->lb;
    t->dt.basic = d->nbasic > INT_MAX ? INT_MAX : (int)d->nbasic;
    t->dt.name = d->name;
    t->dt.tclass = WMPI_TC_NONE;
    t->dt.align = (uint8_t)d->align;
    t->dt.derived = d;
}

int wmpi_datatype_create(const wmpi_type_args *a, wmpi_datatype **out)
{
    wmpi_derived_type *t;
    build b = { 0 };
    int err;

    *out = NULL;
    if (!args_ok(a))
        return WEFT_EINVAL;
    err = build_args(&b, a);
    if (!err && b.err)
        err = b.err;
    if (!err)
        err = settle(&b);
    t = err ? NULL : calloc(1, sizeof *t);
    if (!err && !t)
        err = WEFT_ENOMEM;
    if (!err)
        err = copy_args(&t->d, a);
    if (err) {
        free(t);
        free(b.v);
        return err;
    }
    finish(t, &b);
    __atomic_store_n(&t->d.magic, WMPI_DTD_LIVE, __ATOMIC_RELEASE);
    *out = &t->dt;
    return 0;
}

