/* The engine's datatype interface: layout queries, pack and unpack, the
 * life of derived datatypes (MPI_Type_* constructors), and what the
 * statuses need (counts and elements of a received byte count).
 *
 * Used by the point-to-point protocol (send.c, recv.c, bsend.c: a message
 * carries its elements packed), the reduction ops (is_contig / basic /
 * pack_basic), the collectives (pack / unpack of non-contiguous buffers)
 * and the MPI_Type_* / MPI_Pack* bindings.
 *
 * Terms. An element of `dt` starts at buf + i * extent (i = 0..count-1).
 * Its data is `size` bytes spread over the type map (displacements
 * relative to the element's start, possibly negative: lb < 0). Packed
 * data is those bytes in type-map order with no gaps: count * size bytes.
 * This is also the wire format of every message; receivers unpack it.
 *
 * Predefined types are static objects (engine/objects/datatype.c,
 * datatype_lang.c; `derived` NULL); they are committed, never freed, and
 * retain/release do nothing to them. Derived types are malloc'd, carry a
 * reference count (the user's handle, each pending operation using them, each
 * derived type built on them) and are freed when it drops to zero.
 *
 * Threads: every function may be called from any thread at once; none
 * blocks or takes the engine lock. A derived type is immutable after its
 * constructor returns (but for its name and committed flag, which the
 * user must not change while others use the type: MPI makes that
 * erroneous), so reading it needs no lock.
 */
#ifndef WMPI_DATATYPE_H
#define WMPI_DATATYPE_H

#include <stdint.h>

#include "engine/engine.h"

/* ------------------------------------------------ predefined initialisers */

/* The initialisers of predefined types (datatype.c, datatype_lang.c):
 * WMPI_TYPE for a type of one basic element `ctype` of class `cls`
 * (enum wmpi_type_class without the prefix, e.g. INT); WMPI_PAIR_TYPE for
 * a MINLOC/MAXLOC pair of `A` and int. `str` is the MPI name. */
#define WMPI_PAIR_(A) struct { A a; int b; }
#define WMPI_TYPE(var, ctype, cls, str)                                    \
    wmpi_datatype var = { .size = sizeof(ctype), .extent = sizeof(ctype), \
                          .basic = 1, .name = str,                         \
                          .tclass = WMPI_TC_##cls,                         \
                          .align = _Alignof(ctype) }
#define WMPI_PAIR_TYPE(var, A, cls, str)                                   \
    wmpi_datatype var = { .size = sizeof(A) + sizeof(int),                 \
                          .extent = sizeof(WMPI_PAIR_(A)),                 \
                          .basic = 2, .name = str,                         \
                          .tclass = WMPI_TC_PAIR,                          \
                          .pair_class = WMPI_TC_##cls,                     \
                          .pair_value_size = sizeof(A),                    \
                          .pair_index_offset = offsetof(WMPI_PAIR_(A), b), \
                          .align = _Alignof(WMPI_PAIR_(A)) }

/* ------------------------------------------------------------- queries */

/* 1 if dt is a predefined type (static, never freed). */
int wmpi_datatype_is_predefined(const wmpi_datatype *dt);

/* 1 if n elements of dt are exactly n * extent bytes of data without gaps
 * starting at the buffer (lb 0, size == extent): the buffer may be used
 * as it is, as its own packed form. 0 for pair types with a hole or padding
 * (MPI_DOUBLE_INT...) and for every other layout. */
int wmpi_datatype_is_contig(const wmpi_datatype *dt);

/* 1 if `count` elements of dt are their own packed form stored as one
 * run of count * size bytes at buf + *offset: is_contig types, but also
 * e.g. full rows of a C subarray or a single pair: messages then move
 * them without a copy. 0 otherwise (*offset 0). */
int wmpi_datatype_dense(const wmpi_datatype *dt, int64_t count,
                        int64_t *offset);

/* buf + off as an address (buf may be MPI_BOTTOM, i.e. NULL, with
 * absolute displacements, where pointer arithmetic would be undefined). */
static inline void *wmpi_dt_at(const void *buf, int64_t off)
{
    return (void *)((uintptr_t)buf + (uintptr_t)off);
}

/* The single predefined type all of dt's basic elements are (dt itself if
 * predefined; MPI_DOUBLE_INT for a vector of MPI_DOUBLE_INT), or NULL if
 * dt mixes types or holds no data. */
wmpi_datatype *wmpi_datatype_basic(const wmpi_datatype *dt);

/* Basic elements per element of dt (2 for a pair type). */
int64_t wmpi_datatype_nbasic(const wmpi_datatype *dt);

/* 1 if `count` elements of dt lie in memory exactly as an array of
 * count * nbasic elements of wmpi_datatype_basic(dt) (its extent apart,
 * padding of pair types included), starting at buf + *offset: reductions
 * may then work in place. 0 otherwise (use pack_basic). */
int wmpi_datatype_is_basic_array(const wmpi_datatype *dt, int64_t count,
                                 int64_t *offset);

/* MPI_Type_get_extent / get_true_extent (bytes). For predefined types lb
 * and true_lb are 0, extent and true_extent are `extent`... except pair
 * types, whose true extent ends at their last data byte (as Open MPI). */
typedef struct wmpi_bounds {
    int64_t lb, extent;           /* lb and ub - lb */
    int64_t true_lb, true_extent; /* of the data bytes alone */
} wmpi_bounds;
void wmpi_datatype_bounds(const wmpi_datatype *dt, wmpi_bounds *b);

/* 1 if `count` elements of dt can be addressed: count >= 0, their packed
 * bytes and the last element's offset (count - 1) * extent fit in int64_t.
 * 0 for a count no buffer can hold (a type spanning nearly 2^63 bytes). */
int wmpi_datatype_fits(const wmpi_datatype *dt, int64_t count);

/* The bytes [*lo, *hi), relative to the buffer, that the data of `count`
 * elements of dt occupies: element i starts at i * extent, below the
 * first if the extent is negative, so a scratch buffer for them needs
 * hi - lo bytes and the elements start -lo bytes into it. [0, 0) if they
 * hold no data. Errors: WEFT_EINVAL (count < 0, a bound leaves int64_t). */
int wmpi_datatype_span(const wmpi_datatype *dt, int64_t count, int64_t *lo,
                       int64_t *hi);

/* 1 if dt looks like a datatype handle: not NULL, not a small integer or
 * misaligned pointer, and a predefined type or a derived one not yet
 * destroyed. Catches zeroed memory and handles of destroyed types whose
 * memory was not reused; like wmpi_comm_is_live, it cannot vouch for a
 * wild pointer. */
int wmpi_datatype_is_valid(const wmpi_datatype *dt);

/* 1 if dt may be used in communication (predefined, or committed). */
int wmpi_datatype_committed(const wmpi_datatype *dt);

/* ------------------------------------------------------ pack and unpack */

/* Gather `count` elements of dt at `buf` into `out` (count * size bytes,
 * packed) / scatter them back from `in`. Return the bytes written / read,
 * or WEFT_EINVAL (count < 0 or overflow). Buffers must not overlap. */
int64_t wmpi_datatype_pack(const wmpi_datatype *dt, int64_t count,
                           const void *buf, void *out);
int64_t wmpi_datatype_unpack(const wmpi_datatype *dt, int64_t count,
                             const void *in, void *buf);

/* Unpack only the first `bytes` bytes of the packed form of `count`
 * elements (a short or truncated message): whole elements, then the
 * leading part of the next one, basic element by basic element (a basic
 * element cut in the middle gets its first bytes). Returns bytes read
 * (min(bytes, count * size)) or WEFT_EINVAL. */
int64_t wmpi_datatype_unpack_part(const wmpi_datatype *dt, int64_t count,
                                  const void *in, int64_t bytes, void *buf);

/* For reductions on a type whose wmpi_datatype_basic() is B (not NULL):
 * gather `count` elements of dt into `out` as an array of
 * n = count * nbasic elements of B laid out as in memory
 * (n * B->extent bytes: pair types keep their padding), and back.
 * Return n, or WEFT_EINVAL (no single basic type, bad count),
 * WEFT_ENOMEM. */
int64_t wmpi_datatype_pack_basic(const wmpi_datatype *dt, int64_t count,
                                 const void *buf, void *out);
int64_t wmpi_datatype_unpack_basic(const wmpi_datatype *dt, int64_t count,
                                   const void *in, void *buf);

/* Where a send's payload is: its packed copy (a type that is not dense,
 * packed at start) or the dense run in the user's buffer. */
const void *wmpi_send_data(const wmpi_request *r);

/* --------------------------------------------------------- life cycle */

/* Take / drop a reference (no-ops for predefined types and NULL). An
 * operation that uses dt after its call returns takes one at start and
 * drops it when done; the last release frees a derived type and drops
 * its references to the types it was built from. */
void wmpi_datatype_retain(wmpi_datatype *dt);
void wmpi_datatype_release(wmpi_datatype *dt);

/* How a derived type was built (MPI_Type_get_envelope's combiner; the
 * bindings map these to MPI_COMBINER_*). */
enum wmpi_combiner {
    WMPI_COMBINER_NAMED = 0, /* predefined */
    WMPI_COMBINER_DUP,
    WMPI_COMBINER_CONTIGUOUS,
    WMPI_COMBINER_VECTOR,
    WMPI_COMBINER_HVECTOR,
    WMPI_COMBINER_INDEXED,
    WMPI_COMBINER_HINDEXED,
    WMPI_COMBINER_INDEXED_BLOCK,
    WMPI_COMBINER_HINDEXED_BLOCK,
    WMPI_COMBINER_STRUCT,
    WMPI_COMBINER_SUBARRAY,
    WMPI_COMBINER_DARRAY,
    WMPI_COMBINER_RESIZED,
};

/* The constructor's arguments, exactly as MPI_Type_get_contents returns
 * them (MPI-3.1 4.1.13), by combiner:
 *   DUP            types[0]
 *   CONTIGUOUS     ints: count;                          types[0]
 *   VECTOR         ints: count, blocklength, stride;     types[0]
 *   HVECTOR        ints: count, blocklength; aints: stride; types[0]
 *   INDEXED        ints: count, bl[count], disp[count];  types[0]
 *   HINDEXED       ints: count, bl[count]; aints: disp[count]; types[0]
 *   INDEXED_BLOCK  ints: count, blocklength, disp[count]; types[0]
 *   HINDEXED_BLOCK ints: count, blocklength; aints: disp[count]; types[0]
 *   STRUCT         ints: count, bl[count]; aints: disp[count];
 *                  types[count]
 *   SUBARRAY       ints: ndims, sizes[ndims], subsizes[ndims],
 *                  starts[ndims], order (WMPI_ORDER_C / _FORTRAN); types[0]
 *   DARRAY         ints: size, rank, ndims, gsizes[ndims],
 *                  distribs[ndims] (WMPI_DISTRIBUTE_*), dargs[ndims]
 *                  (WMPI_DISTRIBUTE_DFLT_DARG allowed), psizes[ndims],
 *                  order; types[0]
 *   RESIZED        aints: lb, extent;                    types[0]
 * Displacements in ints are in extents of types[0]; in aints, bytes. */
typedef struct wmpi_type_args {
    int combiner;
    int ni, na, nt;
    const int *ints;
    const int64_t *aints;
    wmpi_datatype *const *types;
} wmpi_type_args;

enum { WMPI_ORDER_C = 0, WMPI_ORDER_FORTRAN = 1 };
enum {
    WMPI_DISTRIBUTE_BLOCK = 0,
    WMPI_DISTRIBUTE_CYCLIC = 1,
    WMPI_DISTRIBUTE_NONE = 2,
    WMPI_DISTRIBUTE_DFLT_DARG = -1,
};

/* Build a derived type (uncommitted, one reference: the handle) from `a`,
 * which is copied. A resized extent may be negative: element i then starts
 * i * |extent| bytes below the first. Errors: WEFT_EINVAL (a negative count
 * or block length, a bad subarray, NULL types, a displacement, bound,
 * extent or true extent that overflows MPI_Aint), WEFT_ENOMEM (also: a
 * type map too large to flatten). */
int wmpi_datatype_create(const wmpi_type_args *a, wmpi_datatype **out);

/* The arguments `dt` was built with (pointers into dt: valid while the
 * caller holds a reference); combiner NAMED and no arguments for a
 * predefined type. */
void wmpi_datatype_args(const wmpi_datatype *dt, wmpi_type_args *a);

/* MPI_Type_commit: a derived type may now be used in communication. */
void wmpi_datatype_commit(wmpi_datatype *dt);

/* MPI_Type_set_name / get_name (64 bytes with the NUL; longer names are
 * cut; *len excludes the NUL). Predefined types may be renamed too (as in
 * Open MPI): their new names live in a small table. Errors: WEFT_EINVAL
 * (NULL), WEFT_ENOMEM (more than 64 predefined types renamed). */
int wmpi_datatype_set_name(wmpi_datatype *dt, const char *name);
void wmpi_datatype_get_name(const wmpi_datatype *dt, char *name, int *len);
#define WMPI_MAX_TYPE_NAME 64

/* ------------------------------------------- external32 (external32.c) */

/* The "external32" representation (MPI-3.1 13.5.2): the packed form with
 * every basic value big-endian at the standard's fixed size (MPI_LONG 4,
 * MPI_WCHAR 2, long double 16 as binary128...). wmpi_external32_size:
 * bytes of `count` elements, or WEFT_EINVAL (count < 0, overflow).
 * pack / unpack: like wmpi_datatype_pack / unpack (returns the external
 * bytes written / read); errors: WEFT_EINVAL, WEFT_ENOMEM (a staging copy
 * of the native packed form). Blocks: no. */
int64_t wmpi_external32_size(const wmpi_datatype *dt, int64_t count);
int64_t wmpi_external32_pack(const wmpi_datatype *dt, int64_t count,
                             const void *buf, void *out);
int64_t wmpi_external32_unpack(const wmpi_datatype *dt, int64_t count,
                               const void *in, void *buf);

/* --------------------------------------------------------- statuses */

/* MPI_Get_count: whole elements of dt in `bytes` (the packed bytes a
 * receive stored), or -1 (MPI_UNDEFINED) if bytes is not a whole number
 * of them; 0 for a type of size 0. */
int64_t wmpi_datatype_count(const wmpi_datatype *dt, int64_t bytes);

/* MPI_Get_elements: basic elements in `bytes`, counting the leading
 * basic elements of a partial last element; -1 (MPI_UNDEFINED) if bytes
 * ends inside a basic element. */
int64_t wmpi_datatype_elements(const wmpi_datatype *dt, int64_t bytes);

/* MPI_Status_set_elements: the byte count whose wmpi_datatype_elements
 * is n (whole elements, then the leading basic elements of the next), or
 * -1 if none is (n > 0 basic elements of a type without any). */
int64_t wmpi_datatype_elements_bytes(const wmpi_datatype *dt, int64_t n);

/* The bytes `count` elements of dt cover, as *nruns (offset, length)
 * pairs of int64_t in type-map order (the order of the packed bytes),
 * adjacent blocks merged; *out is malloc'd (NULL if no data). Errors:
 * WEFT_EINVAL (count < 0), WEFT_ENOMEM (datatype_runs.c). */
int wmpi_datatype_runs(const wmpi_datatype *dt, int64_t count,
                       int64_t **out, int64_t *nruns);

#endif /* WMPI_DATATYPE_H */
