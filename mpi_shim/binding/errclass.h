/* User-defined error classes and codes (MPI_Add_error_class,
 * MPI_Add_error_code, MPI_Add_error_string), for the error path
 * (binding/errors.c) and the MPI_LASTUSEDCODE attribute. Definitions in
 * binding/errclass.c. Every function may be called from any thread and
 * never blocks.
 *
 * Classes and codes share one numbering: the predefined classes are
 * 0..MPI_ERR_LASTCODE; user classes and codes follow, numbered in the
 * order they were added (a user class is its own code).
 */
#ifndef WMPI_ERRCLASS_H
#define WMPI_ERRCLASS_H

#include <stddef.h>

/* The largest error code or class in use: MPI_LASTUSEDCODE's value
 * (MPI_ERR_LASTCODE until the program adds its own). */
int wbind_errclass_last(void);

/* The class of error code `code` (a predefined class is its own), or -1
 * if no such code exists. */
int wbind_errcode_class(int code);

/* For a user code or class: copy its string (MPI_Add_error_string; ""
 * if none was set) into buf (len bytes with the NUL) and return 1.
 * Return 0 for any other code. */
int wbind_errcode_string(int code, char *buf, size_t len);

#endif /* WMPI_ERRCLASS_H */
