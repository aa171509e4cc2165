/* Applying a reduction op to typed buffers: wmpi_op_apply, wmpi_op_valid.
 *
 * Design: a user op is called with the datatype as the user gave it, in
 * chunks of at most INT_MAX elements (its `len` is an int). A predefined
 * op works on the single predefined type a datatype is made of
 * (wmpi_datatype_basic: the type itself when predefined) and runs that
 * type's kernel once over all count * nbasic basic elements: in place when
 * the elements lie in memory as a plain array of the basic type (every
 * predefined type, contiguous derived types), else on copies gathered with
 * wmpi_datatype_pack_basic and scattered back into inout.
 *
 * Rejected: a kernel call per derived-type block (many short loops and a
 * walk of the type map, against one pass each way through a temporary);
 * unpacking into a copy of inout to spare the first gather (the gather is
 * what keeps inout's gaps intact).
 *
 * Invariants: inout is written only when the op is defined on dt.
 * Locking: none (kernels touch only the caller's buffers).
 */
#include <limits.h>
#include <stdlib.h>

#include "engine/objects/datatype.h"
#include "engine/objects/op.h"

static int apply_user(const wmpi_op *op, const void *in, void *inout,
                      int64_t count, wmpi_datatype *dt)
{
    const unsigned char *a = in;
    unsigned char *b = inout;
    wmpi_datatype *handle = dt;

    while (count > 0) {
        int len = count > INT_MAX ? INT_MAX : (int)count;
        int64_t step = (int64_t)len * (int64_t)dt->extent;

        op->fn((void *)a, b, &len, &handle);
        a += step;
        b += step;
        count -= len;
    }
    return 0;
}

/* Through temporaries: gather both operands as arrays of the basic type,
 * reduce, scatter the result back into inout. */
static int apply_packed(wmpi_op_kernel *k, const void *in, void *inout,
                        int64_t count, const wmpi_datatype *dt,
                        const wmpi_datatype *basic, int64_t n)
{
    size_t bytes;
    unsigned char *tmp;
    int err = 0;

    if (n > INT64_MAX / 2 / (int64_t)(basic->extent ? basic->extent : 1))
        return WEFT_EINVAL;
    bytes = (size_t)n * basic->extent;
    tmp = malloc(2 * bytes + 1);
    if (!tmp)
        return WEFT_ENOMEM;
    if (wmpi_datatype_pack_basic(dt, count, in, tmp) < 0 ||
        wmpi_datatype_pack_basic(dt, count, inout, tmp + bytes) < 0) {
        err = WEFT_EINVAL;
    } else {
        k(tmp, tmp + bytes, n, basic);
        if (wmpi_datatype_unpack_basic(dt, count, tmp + bytes, inout) < 0)
            err = WEFT_EINVAL;
    }
    free(tmp);
    return err;
}

static int apply_predefined(const wmpi_op *op, const void *in, void *inout,
                            int64_t count, wmpi_datatype *dt)
{
    const wmpi_datatype *basic = wmpi_datatype_basic(dt);
    wmpi_op_kernel *k = wmpi_op_find_kernel(op->id, basic);
    int64_t nbasic, offset = 0;

    if (!k)
        return WEFT_EINVAL;
    if (count == 0 || op->id == WMPI_OP_NO_OP)
        return 0;
    /* basic elements of `basic` in count elements of dt (2 per pair in a
     * pair type's own count, which the kernel takes as one element) */
    nbasic = wmpi_datatype_nbasic(dt) / wmpi_datatype_nbasic(basic);
    if (nbasic < 1 || count > INT64_MAX / nbasic)
        return WEFT_EINVAL;
    if (wmpi_datatype_is_basic_array(dt, count, &offset)) {
        k((const unsigned char *)in + offset, (unsigned char *)inout + offset,
          count * nbasic, basic);
        return 0;
    }
    return apply_packed(k, in, inout, count, dt, basic, count * nbasic);
}

int wmpi_op_apply(const wmpi_op *op, const void *in, void *inout,
                  int64_t count, wmpi_datatype *dt)
{
    if (!op || !dt || count < 0)
        return WEFT_EINVAL;
    if (op->id == WMPI_OP_USER)
        return op->fn ? apply_user(op, in, inout, count, dt) : WEFT_EINVAL;
    return apply_predefined(op, in, inout, count, dt);
}

int wmpi_op_valid(const wmpi_op *op, const wmpi_datatype *dt)
{
    if (!wmpi_op_is_live(op) || !dt) /* freed, zeroed, (MPI_Op)1 */
        return 0;
    if (op->id == WMPI_OP_USER)
        return op->fn != NULL;
    if (op->id == WMPI_OP_REPLACE || op->id == WMPI_OP_NO_OP)
        return 0; /* accumulate only (MPI-3.1 11.3.4); Open MPI agrees */
    return wmpi_op_find_kernel(op->id, wmpi_datatype_basic(dt)) != NULL;
}
