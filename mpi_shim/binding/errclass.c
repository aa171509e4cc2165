/* User error classes and codes: MPI_Add_error_class, MPI_Add_error_code,
 * MPI_Add_error_string, and the lookups the error path makes
 * (binding/errclass.h).
 *
 * Design: user classes and codes are numbered on from MPI_ERR_LASTCODE + 1
 * in the order they are added, sharing one sequence (as in Open MPI and
 * MPICH; a class is also a valid code of itself). One table, indexed by
 * code - MPI_ERR_LASTCODE - 1, holds each one's class and string; the
 * last number handed out is MPI_LASTUSEDCODE's value (pushed to the
 * attribute, engine/objects/attr.c, as it changes). Strings may be set
 * (and replaced) for user classes and codes only: changing a predefined
 * class's text is MPI_ERR_ARG, as Open MPI reports. A user code without a
 * string reads as "" (Open MPI too).
 *
 * Rejected: a fixed-size table (programs, notably libraries layered over
 * MPI, add codes as they please); per-entry allocation (entries are
 * small, and the table is only ever appended to).
 *
 * Invariants: 0 <= n; entries[0..n) describe codes LASTCODE+1..LASTCODE+n;
 * an entry's class is a predefined class or an earlier user class.
 * Locking: a spin lock (engine/core/lock.h) around every table access; lookups
 * copy out under it, so the table may grow meanwhile.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding/binding.h"
#include "binding/errclass.h"
#include "engine/objects/comm.h"
#include "engine/core/lock.h"

typedef struct user_code {
    int cls;                          /* itself for a user class */
    char str[MPI_MAX_ERROR_STRING];   /* "" until MPI_Add_error_string */
} user_code;

static struct {
    wmpi_lock lock;
    user_code *v;
    int n, cap;
} tab = { .lock = WMPI_LOCK_INITIALIZER };

#define FIRST_USER (MPI_ERR_LASTCODE + 1)

/* ------------------------------------------------------------ lookups */

static user_code *entry_locked(int code)
{
    return code >= FIRST_USER && code - FIRST_USER < tab.n ? &tab.v[code - FIRST_USER]
                                                           : NULL;
}

int wbind_errclass_last(void)
{
    int n;

    wmpi_lock_take(&tab.lock);
    n = tab.n;
    wmpi_lock_release(&tab.lock);
    return MPI_ERR_LASTCODE + n;
}

int wbind_errcode_class(int code)
{
    user_code *e;
    int cls;

    if (code >= 0 && code <= MPI_ERR_LASTCODE)
        return code;
    wmpi_lock_take(&tab.lock);
    e = entry_locked(code);
    cls = e ? e->cls : -1;
    wmpi_lock_release(&tab.lock);
    return cls;
}

int wbind_errcode_string(int code, char *buf, size_t len)
{
    user_code *e;

    wmpi_lock_take(&tab.lock);
    e = entry_locked(code);
    if (e && len > 0)
        snprintf(buf, len, "%s", e->str);
    wmpi_lock_release(&tab.lock);
    return e != NULL;
}

/* ------------------------------------------------------------ adding */

/* Append an entry of class `cls` (-1: the new code is a class of its
 * own); its code, or -1 without memory. */
static int add(int cls)
{
    int code = -1;

    wmpi_lock_take(&tab.lock);
    if (tab.n == tab.cap) {
        int cap = tab.cap ? 2 * tab.cap : 16;
        user_code *v = realloc(tab.v, (size_t)cap * sizeof *v);
        if (v) {
            tab.v = v;
            tab.cap = cap;
        }
    }
    if (tab.n < tab.cap) {
        code = FIRST_USER + tab.n;
        tab.v[tab.n].cls = cls < 0 ? code : cls;
        tab.v[tab.n].str[0] = '\0';
        tab.n++;
        wmpi_attr_set_lastusedcode(code); /* MPI_COMM_WORLD's attribute */
    }
    wmpi_lock_release(&tab.lock);
    return code;
}

int PMPI_Add_error_class(int *errorclass)
{
    int code;

    WMPI_NEED_INIT("MPI_Add_error_class");
    if (!errorclass)
        return wbind_fail(NULL, MPI_ERR_ARG, "MPI_Add_error_class");
    code = add(-1);
    if (code < 0)
        return wbind_fail(NULL, MPI_ERR_NO_MEM, "MPI_Add_error_class");
    *errorclass = code;
    return MPI_SUCCESS;
}
WMPI_ALIAS(Add_error_class)

int PMPI_Add_error_code(int errorclass, int *errorcode)
{
    int code;

    WMPI_NEED_INIT("MPI_Add_error_code");
    if (!errorcode || wbind_errcode_class(errorclass) != errorclass)
        return wbind_fail(NULL, MPI_ERR_ARG, "MPI_Add_error_code");
    code = add(errorclass);
    if (code < 0)
        return wbind_fail(NULL, MPI_ERR_NO_MEM, "MPI_Add_error_code");
    *errorcode = code;
    return MPI_SUCCESS;
}
WMPI_ALIAS(Add_error_code)

int PMPI_Add_error_string(int errorcode, const char *string)
{
    user_code *e;

    WMPI_NEED_INIT("MPI_Add_error_string");
    if (!string || strnlen(string, MPI_MAX_ERROR_STRING) >= MPI_MAX_ERROR_STRING)
        return wbind_fail(NULL, MPI_ERR_ARG, "MPI_Add_error_string");
    wmpi_lock_take(&tab.lock);
    e = entry_locked(errorcode);
    if (e)
        snprintf(e->str, sizeof e->str, "%s", string);
    wmpi_lock_release(&tab.lock);
    return e ? MPI_SUCCESS : wbind_fail(NULL, MPI_ERR_ARG, "MPI_Add_error_string");
}
WMPI_ALIAS(Add_error_string)
