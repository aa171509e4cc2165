/* Private to engine/datatype*.c: the description of a derived datatype
 * and the flattened type map the pack engine walks.
 *
 * A type map is flattened, at construction, into segments: `count`
 * blocks of `len` bytes at disp, disp + stride, ... (relative to the
 * element's start), in type-map order. Adjacent blocks merge, and blocks
 * of one length at a regular distance merge into one strided segment, so a
 * vector is one segment and a 2-D subarray one; a vector of vectors is one
 * segment per outer block. Predefined types get their one or two segments
 * (a pair with a hole: value, then int) from type_segs().
 */
#ifndef WMPI_DATATYPE_IMPL_H
#define WMPI_DATATYPE_IMPL_H

#include <stdint.h>

#include "engine/objects/datatype.h"

typedef struct wmpi_seg {
    int64_t disp, len, count, stride;
} wmpi_seg;

/* Segments are capped so that a pathological type fails with ENOMEM
 * instead of exhausting memory (16 Mi segments = 512 MiB). */
#define WMPI_MAX_SEGS ((int64_t)1 << 24)

#define WMPI_DTD_LIVE 0x45505954u  /* "TYPE" */
#define WMPI_DTD_FREED 0x44455246u /* "FRED" */

struct wmpi_dtd {
    uint32_t magic;          /* atomic: WMPI_DTD_LIVE until destroyed */
    int refs;                /* atomic: handle + operations + parents */
    uint8_t committed;
    uint8_t lb_marked;       /* lb / ub set explicitly (resized, subarray) */
    uint8_t ub_marked;       /* and inherited as MPI's lb/ub markers */
    int64_t size;            /* data bytes per element */
    int64_t lb, ub;          /* extent = ub - lb (< 0 if resized so) */
    int64_t true_lb, true_ub;
    int64_t nbasic;          /* basic elements per element */
    int64_t align;           /* largest alignment of its basic types */
    wmpi_datatype *basic;    /* the single basic type, or NULL */
    wmpi_seg *segs;          /* flattened type map of one element */
    int64_t nsegs;
    wmpi_type_args args;     /* the constructor's (copied) arguments */
    char name[WMPI_MAX_TYPE_NAME];
};

/* A derived type's allocation: the handle's object and its description. */
typedef struct wmpi_derived_type {
    wmpi_datatype dt;
    struct wmpi_dtd d;
} wmpi_derived_type;

/* ---------------------------------------------------------- the builder */

/* What a constructor accumulates (datatype_create.c): the type map's
 * segments, size, basic elements and bounds, block by block. */
typedef struct wmpi_build {
    wmpi_seg *v;
    int64_t n, cap;
    int err;                  /* first error: WEFT_EINVAL / WEFT_ENOMEM */
    int any, data, marked, mixed;
    int64_t lb, ub;           /* of unmarked blocks */
    int64_t mlb, mub;         /* of marked blocks (lb/ub markers) */
    int64_t true_lb, true_ub;
    int64_t size, nbasic, align;
    wmpi_datatype *basic;
} wmpi_build;

/* Append `reps` consecutive copies of dt at byte `disp` to the type map
 * (errors go to b->err). */
void wmpi_build_block(wmpi_build *b, const wmpi_datatype *dt, int64_t reps,
                      int64_t disp);
/* x * y and x + y, or 0 with b->err = WEFT_EINVAL on overflow. */
int64_t wmpi_build_mul(wmpi_build *b, int64_t x, int64_t y);
int64_t wmpi_build_add(wmpi_build *b, int64_t x, int64_t y);
/* Set the type's lb and ub explicitly (as markers, like resized). */
void wmpi_build_bounds(wmpi_build *b, int64_t lb, int64_t ub);
/* ub - lb of dt. */
int64_t wmpi_datatype_extent64(const wmpi_datatype *dt);

/* The array combiners (datatype_array.c): 0 or WEFT_EINVAL/ENOMEM. */
int wmpi_build_subarray(wmpi_build *b, const wmpi_type_args *a);
int wmpi_build_darray(wmpi_build *b, const wmpi_type_args *a);

/* The segments of one element of dt: its own for a derived type, else
 * built into tmp[2]. Sets *n. */
const wmpi_seg *wmpi_datatype_segs(const wmpi_datatype *dt, wmpi_seg tmp[2],
                             int64_t *n);

#endif /* WMPI_DATATYPE_IMPL_H */
