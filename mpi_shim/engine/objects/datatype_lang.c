/* Predefined datatypes of the Fortran and C++ bindings, usable from C
 * (MPI-3.1 §3.2.2, §17.2.5): MPI_INTEGER, MPI_REAL, MPI_LOGICAL,
 * MPI_CXX_BOOL, the sized Fortran types, and their pair types.
 *
 * Design: the same static objects as datatype.c's C types, one per type,
 * whose address is the handle. Each maps to the C type with the layout
 * the Fortran or C++ compiler of this ABI uses: INTEGER and LOGICAL are
 * C ints, REAL a float, DOUBLE PRECISION a double, COMPLEX a float
 * _Complex; C++ bool and std::complex<T> are laid out as _Bool and T
 * _Complex. Every type carries its class, so the reduction ops handle
 * these names with no code of their own (MPI_LOGICAL: WMPI_TC_BOOL of
 * sizeof(int)).
 *
 * The pair types of MINLOC/MAXLOC: MPI_2INTEGER is a (value, int index) pair
 * like MPI_2INT; MPI_2REAL and MPI_2DOUBLE_PRECISION hold their index in the
 * value's type. The pair layout (value class and size, index offset) describes
 * them all; the reduction kernels (engine/objects/op_kernels.c) read an 8-byte
 * index as the value's type, and a 4-byte one as an int, which orders the
 * non-negative REAL indices MINLOC/MAXLOC use exactly as REALs (IEEE bit
 * patterns) and copies any REAL unchanged.
 *
 * Optional types the platform lacks are MPI_DATATYPE_NULL in mpi.h, as
 * the standard allows: INTEGER16, REAL2, COMPLEX4, and REAL16/COMPLEX32
 * unless long double is IEEE quad precision (then they exist here).
 *
 * Rejected: aliasing the Fortran names to the C objects in mpi.h (e.g.
 * MPI_INTEGER as MPI_INT): MPI_Type_get_name and MPI_Type_get_envelope
 * must tell them apart, and the standard says they are distinct types.
 *
 * Invariants: as datatype.c (size <= extent, basic >= 1). No state, no
 * locking.
 */
#include <complex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/engine.h"

#define LANG_TYPE(var, ctype, cls, str)                                    \
    wmpi_datatype var = { .size = sizeof(ctype), .extent = sizeof(ctype),  \
                          .basic = 1, .name = str, .tclass = WMPI_TC_##cls }

/* A (value, int index) pair for MINLOC/MAXLOC, as datatype.c's PAIR_TYPE. */
#define LANG_INT_PAIR(var, A, cls, str)                                    \
    wmpi_datatype var = {                                                  \
        .size = sizeof(A) + sizeof(int),                                   \
        .extent = sizeof(struct { A a; int b; }),                          \
        .basic = 2, .name = str, .tclass = WMPI_TC_PAIR,                   \
        .pair_class = WMPI_TC_##cls, .pair_value_size = sizeof(A),         \
        .pair_index_offset = offsetof(struct { A a; int b; }, b) }

/* A (value, index) pair for MINLOC/MAXLOC, both of type A (Fortran). */
#define LANG_SAME_PAIR(var, A, cls, str)                                   \
    wmpi_datatype var = {                                                  \
        .size = 2 * sizeof(A), .extent = sizeof(struct { A a; A b; }),     \
        .basic = 2, .name = str, .tclass = WMPI_TC_PAIR,                   \
        .pair_class = WMPI_TC_##cls, .pair_value_size = sizeof(A),         \
        .pair_index_offset = offsetof(struct { A a; A b; }, b) }

/* Fortran named types */
LANG_TYPE(wmpi_dt_integer, int, INT, "MPI_INTEGER");
LANG_TYPE(wmpi_dt_real, float, FLOAT, "MPI_REAL");
LANG_TYPE(wmpi_dt_double_precision, double, FLOAT, "MPI_DOUBLE_PRECISION");
LANG_TYPE(wmpi_dt_complex, float _Complex, COMPLEX, "MPI_COMPLEX");
LANG_TYPE(wmpi_dt_double_complex, double _Complex, COMPLEX, "MPI_DOUBLE_COMPLEX");
LANG_TYPE(wmpi_dt_logical, int, BOOL, "MPI_LOGICAL");
LANG_TYPE(wmpi_dt_character, char, NONE, "MPI_CHARACTER");

/* Fortran pair types */
LANG_INT_PAIR(wmpi_dt_2integer, int, INT, "MPI_2INTEGER");
LANG_SAME_PAIR(wmpi_dt_2real, float, FLOAT, "MPI_2REAL");
LANG_SAME_PAIR(wmpi_dt_2double_precision, double, FLOAT, "MPI_2DOUBLE_PRECISION");

/* Fortran sized types */
LANG_TYPE(wmpi_dt_integer1, int8_t, INT, "MPI_INTEGER1");
LANG_TYPE(wmpi_dt_integer2, int16_t, INT, "MPI_INTEGER2");
LANG_TYPE(wmpi_dt_integer4, int32_t, INT, "MPI_INTEGER4");
LANG_TYPE(wmpi_dt_integer8, int64_t, INT, "MPI_INTEGER8");
LANG_TYPE(wmpi_dt_real4, float, FLOAT, "MPI_REAL4");
LANG_TYPE(wmpi_dt_real8, double, FLOAT, "MPI_REAL8");
LANG_TYPE(wmpi_dt_complex8, float _Complex, COMPLEX, "MPI_COMPLEX8");
LANG_TYPE(wmpi_dt_complex16, double _Complex, COMPLEX, "MPI_COMPLEX16");
#if defined(__LDBL_MANT_DIG__) && __LDBL_MANT_DIG__ == 113
LANG_TYPE(wmpi_dt_real16, long double, FLOAT, "MPI_REAL16");
LANG_TYPE(wmpi_dt_complex32, long double _Complex, COMPLEX, "MPI_COMPLEX32");
#endif

/* C++ types */
LANG_TYPE(wmpi_dt_cxx_bool, bool, BOOL, "MPI_CXX_BOOL");
LANG_TYPE(wmpi_dt_cxx_float_complex, float _Complex, COMPLEX,
          "MPI_CXX_FLOAT_COMPLEX");
LANG_TYPE(wmpi_dt_cxx_double_complex, double _Complex, COMPLEX,
          "MPI_CXX_DOUBLE_COMPLEX");
LANG_TYPE(wmpi_dt_cxx_long_double_complex, long double _Complex, COMPLEX,
          "MPI_CXX_LONG_DOUBLE_COMPLEX");
