/* Predefined datatypes and the byte count of a typed buffer.
 *
 * Design: one static object per predefined type, whose address is the
 * MPI_Datatype handle (mpi.h). Each knows its size (data bytes), its extent
 * (memory span) and how many basic elements it holds. Every predefined
 * type is contiguous: a buffer of `count` elements is count * extent bytes,
 * sent as they are. The pair types (MPI_DOUBLE_INT...) therefore travel with
 * their padding, which is correct between ranks of one architecture (the
 * transports assume that already). Derived types (next issue) will carry
 * pack/unpack operations in `pack`; the protocol code asks for bytes
 * through wmpi_datatype_bytes() so that packing can slot in there.
 *
 * Rejected: an enum of type codes with a size table (the handle would have
 * to be an integer; see mpi.h for why handles are pointers).
 *
 * Invariants: size <= extent; basic >= 1. No state, no locking.
 */
#include <complex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <wchar.h>

#include "engine/engine.h"

#define PAIR(A, B) struct { A a; B b; }

#define TYPE(var, ctype, cls, str)                                         \
    wmpi_datatype var = { sizeof(ctype), sizeof(ctype), 1, str, NULL,      \
                          WMPI_TC_##cls, 0, 0, 0 }
#define PAIR_TYPE(var, A, cls, str)                                        \
    wmpi_datatype var = { sizeof(A) + sizeof(int), sizeof(PAIR(A, int)),   \
                          2, str, NULL, WMPI_TC_PAIR, WMPI_TC_##cls,       \
                          sizeof(A), offsetof(PAIR(A, int), b) }

TYPE(wmpi_dt_char, char, NONE, "MPI_CHAR");
TYPE(wmpi_dt_signed_char, signed char, INT, "MPI_SIGNED_CHAR");
TYPE(wmpi_dt_unsigned_char, unsigned char, UINT, "MPI_UNSIGNED_CHAR");
TYPE(wmpi_dt_byte, unsigned char, BYTE, "MPI_BYTE");
TYPE(wmpi_dt_packed, unsigned char, NONE, "MPI_PACKED");
TYPE(wmpi_dt_short, short, INT, "MPI_SHORT");
TYPE(wmpi_dt_unsigned_short, unsigned short, UINT, "MPI_UNSIGNED_SHORT");
TYPE(wmpi_dt_int, int, INT, "MPI_INT");
TYPE(wmpi_dt_unsigned, unsigned, UINT, "MPI_UNSIGNED");
TYPE(wmpi_dt_long, long, INT, "MPI_LONG");
TYPE(wmpi_dt_unsigned_long, unsigned long, UINT, "MPI_UNSIGNED_LONG");
TYPE(wmpi_dt_long_long, long long, INT, "MPI_LONG_LONG_INT");
TYPE(wmpi_dt_unsigned_long_long, unsigned long long, UINT, "MPI_UNSIGNED_LONG_LONG");
TYPE(wmpi_dt_float, float, FLOAT, "MPI_FLOAT");
TYPE(wmpi_dt_double, double, FLOAT, "MPI_DOUBLE");
TYPE(wmpi_dt_long_double, long double, FLOAT, "MPI_LONG_DOUBLE");
TYPE(wmpi_dt_wchar, wchar_t, NONE, "MPI_WCHAR");
TYPE(wmpi_dt_c_bool, bool, BOOL, "MPI_C_BOOL");
TYPE(wmpi_dt_int8, int8_t, INT, "MPI_INT8_T");
TYPE(wmpi_dt_int16, int16_t, INT, "MPI_INT16_T");
TYPE(wmpi_dt_int32, int32_t, INT, "MPI_INT32_T");
TYPE(wmpi_dt_int64, int64_t, INT, "MPI_INT64_T");
TYPE(wmpi_dt_uint8, uint8_t, UINT, "MPI_UINT8_T");
TYPE(wmpi_dt_uint16, uint16_t, UINT, "MPI_UINT16_T");
TYPE(wmpi_dt_uint32, uint32_t, UINT, "MPI_UINT32_T");
TYPE(wmpi_dt_uint64, uint64_t, UINT, "MPI_UINT64_T");
TYPE(wmpi_dt_aint, intptr_t, INT, "MPI_AINT");
TYPE(wmpi_dt_offset, long long, INT, "MPI_OFFSET");
TYPE(wmpi_dt_count, long long, INT, "MPI_COUNT");
TYPE(wmpi_dt_c_float_complex, float _Complex, COMPLEX, "MPI_C_FLOAT_COMPLEX");
TYPE(wmpi_dt_c_double_complex, double _Complex, COMPLEX, "MPI_C_DOUBLE_COMPLEX");
TYPE(wmpi_dt_c_long_double_complex, long double _Complex, COMPLEX,
     "MPI_C_LONG_DOUBLE_COMPLEX");

PAIR_TYPE(wmpi_dt_float_int, float, FLOAT, "MPI_FLOAT_INT");
PAIR_TYPE(wmpi_dt_double_int, double, FLOAT, "MPI_DOUBLE_INT");
PAIR_TYPE(wmpi_dt_long_int, long, INT, "MPI_LONG_INT");
PAIR_TYPE(wmpi_dt_2int, int, INT, "MPI_2INT");
PAIR_TYPE(wmpi_dt_short_int, short, INT, "MPI_SHORT_INT");
PAIR_TYPE(wmpi_dt_long_double_int, long double, FLOAT, "MPI_LONG_DOUBLE_INT");

int64_t wmpi_datatype_bytes(const wmpi_datatype *dt, int64_t count)
{
    if (count < 0 || !dt)
        return WEFT_EINVAL;
    if (dt->extent && count > INT64_MAX / (int64_t)dt->extent)
        return WEFT_EINVAL;
    return count * (int64_t)dt->extent;
}
