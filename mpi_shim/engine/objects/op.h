/* The engine's reduction interface: apply an op (predefined or user) to
 * typed buffers, check an op fits a datatype, and the life of user ops.
 *
 * Used by the collectives (reduce, allreduce, scan...), MPI_Reduce_local
 * and, later, accumulate. Predefined ops choose their kernel by the
 * datatype's class and size (engine.h, enum wmpi_type_class), so every
 * predefined type of a class, whatever its language, works; derived types
 * made of one predefined type work too (contiguous: in place; otherwise
 * through pack/unpack into a temporary buffer).
 *
 * Threads: all of these may be called from any thread at once; none takes
 * the engine lock and none blocks.
 */
#ifndef WMPI_OP_H
#define WMPI_OP_H

#include <stdint.h>

#include "engine/engine.h"

/* These functions share the wmpi_op_ prefix of the predefined objects
 * that binding/exports.map exports; hidden, they stay internal. */
#define WMPI_OP_HIDDEN __attribute__((visibility("hidden")))

/* wmpi_op.id of the predefined ops; user ops have WMPI_OP_USER. */
enum wmpi_op_id {
    WMPI_OP_USER = 0,
    WMPI_OP_MAX, WMPI_OP_MIN, WMPI_OP_SUM, WMPI_OP_PROD,
    WMPI_OP_LAND, WMPI_OP_BAND, WMPI_OP_LOR, WMPI_OP_BOR,
    WMPI_OP_LXOR, WMPI_OP_BXOR, WMPI_OP_MAXLOC, WMPI_OP_MINLOC,
    WMPI_OP_REPLACE, WMPI_OP_NO_OP,
    WMPI_OP_COUNT /* one past the last */
};

/* inout[i] = in[i] op inout[i] for the `count` elements of `dt` in each
 * buffer (for a non-commutative user op, `in` is the left operand: the
 * lower ranks' data). User ops are called with `dt` as it is, in chunks of
 * at most INT_MAX elements. `in` and `inout` must not overlap.
 * Returns 0, or WEFT_EINVAL (op not defined on dt, count < 0, NULL op or
 * dt), WEFT_ENOMEM (a non-contiguous derived type's temporary).
 * Blocks: no (a user function may, at its own risk). */
WMPI_OP_HIDDEN int wmpi_op_apply(const wmpi_op *op, const void *in,
                                 void *inout, int64_t count, wmpi_datatype *dt);

/* 1 if op is a live op handle (wmpi_op_is_live: not freed, not zeroed
 * memory) that may be used in a reduction on dt (user ops: any dt), else
 * 0: the MPI_ERR_OP check a collective makes before any message moves.
 * MPI_REPLACE and MPI_NO_OP give 0: MPI allows them in accumulate only
 * (Open MPI rejects them in reductions too), though wmpi_op_apply
 * applies them (inout = in; nothing). */
WMPI_OP_HIDDEN int wmpi_op_valid(const wmpi_op *op, const wmpi_datatype *dt);

/* 1 if op is commutative (every predefined op is), else 0. */
WMPI_OP_HIDDEN int wmpi_op_commutative(const wmpi_op *op);

/* 1 if op is one of the predefined ops (static, never freed). */
WMPI_OP_HIDDEN int wmpi_op_is_predefined(const wmpi_op *op);

/* MPI_Op_create: a user op calling fn, with one reference (the handle).
 * Errors: WEFT_EINVAL (fn NULL), WEFT_ENOMEM. */
WMPI_OP_HIDDEN int wmpi_op_create(wmpi_user_fn *fn, int commute, wmpi_op **out);

/* MPI_Op_free: the handle dies at once (wmpi_op_is_live says 0) and its
 * reference is dropped; the op lives on while an operation holds one.
 * Errors: WEFT_EINVAL (not a live handle, or a predefined op). */
WMPI_OP_HIDDEN int wmpi_op_free(wmpi_op *op);

/* An operation that uses op after its call returns (a non-blocking
 * collective) holds a reference: retain when it starts, release when it
 * is finished. Both are no-ops on predefined ops. */
WMPI_OP_HIDDEN void wmpi_op_retain(wmpi_op *op);
WMPI_OP_HIDDEN void wmpi_op_release(wmpi_op *op);

/* ------------------------------------------------- inside engine/op*.c */

/* A kernel: inout[i] = in[i] op inout[i] over n elements of a predefined
 * type (dt: for the layout of pair types). */
typedef void wmpi_op_kernel(const void *in, void *inout, int64_t n,
                            const wmpi_datatype *dt);

/* The kernel of predefined op `id` for predefined type dt (by class and
 * size), or NULL if the op is not defined on it (op_kernels.c). */
WMPI_OP_HIDDEN wmpi_op_kernel *wmpi_op_find_kernel(int id,
                                                   const wmpi_datatype *dt);

#endif /* WMPI_OP_H */
