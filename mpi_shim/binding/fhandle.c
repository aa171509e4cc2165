/* Handle conversion between C and Fortran (MPI-3.1 §17.2.4): the
 * MPI_<Kind>_c2f / MPI_<Kind>_f2c functions and MPI_Status_c2f / _f2c.
 *
 * Design: C handles are pointers, Fortran handles are MPI_Fint (32-bit)
 * integers, so a handle gets an integer the first time it is converted:
 * its index in one table shared by every kind of handle. Index 0 is the
 * null handle (every kind's null is a null pointer), so f2c(c2f(h)) == h
 * for every h, null included, and an integer that was never handed out
 * converts to the null handle. Entries are never removed: a freed handle
 * keeps its integer, and a new object at the same address gets the same
 * one back, as the C handle value is the same too. The table grows with
 * the number of distinct handles ever converted (programs convert few).
 *
 * Rejected: the pointer's low 32 bits (not unique on 64-bit hosts); a
 * table per kind (the same code four times for no gain: MPI does not
 * require the integers of different kinds to differ or to coincide).
 *
 * Invariants: slots[0] == NULL; index_of maps every slots[i] (i > 0) to
 * i; n_slots <= cap_slots; the hash is at most half full.
 * Locking: one spin lock (engine/core/lock.h) guards the table; critical
 * sections are a hash probe or an append, and never block.
 */
#include <stdint.h>
#include <stdlib.h>

#include "binding/binding.h"
#include "engine/core/lock.h"

static wmpi_lock table_lock = WMPI_LOCK_INITIALIZER;
static void **slots;         /* index -> handle */
static int n_slots, cap_slots;
static int *index_of;        /* open-addressing hash: handle -> index, 0 = empty */
static size_t hash_cap;      /* power of two */

static size_t hash_ptr(const void *p, size_t cap)
{
    uint64_t x = (uint64_t)(uintptr_t)p;

    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return (size_t)x & (cap - 1);
}

/* Slot of `h` in the hash (its index, or the empty slot where it goes). */
static size_t probe(const void *h)
{
    size_t i = hash_ptr(h, hash_cap);

    while (index_of[i] && slots[index_of[i]] != h)
        i = (i + 1) & (hash_cap - 1);
    return i;
}

/* Double the hash and rebuild it from the slots. 0, or -1 if out of memory. */
static int grow_hash(void)
{
    size_t cap = hash_cap ? 2 * hash_cap : 64;
    int *fresh = calloc(cap, sizeof *fresh);

    if (!fresh)
        return -1;
    free(index_of);
    index_of = fresh;
    hash_cap = cap;
    for (int i = 1; i < n_slots; i++)
        index_of[probe(slots[i])] = i;
    return 0;
}

static int grow_slots(void)
{
    int cap = cap_slots ? 2 * cap_slots : 64;
    void **fresh = realloc(slots, (size_t)cap * sizeof *fresh);

    if (!fresh || cap <= cap_slots)
        return -1;
    slots = fresh;
    cap_slots = cap;
    if (n_slots == 0)
        slots[n_slots++] = NULL; /* index 0: the null handle */
    return 0;
}

/* The integer of handle h, adding it if new; -1 if out of memory (or out
 * of MPI_Fint range). Caller holds table_lock. */
static MPI_Fint to_fint_locked(void *h)
{
    size_t at;

    if ((n_slots == cap_slots && grow_slots() < 0) ||
        ((size_t)n_slots * 2 >= hash_cap && grow_hash() < 0))
        return -1;
    at = probe(h);
    if (!index_of[at]) {
        slots[n_slots] = h;
        index_of[at] = n_slots++;
    }
    return index_of[at];
}

static MPI_Fint to_fint(void *h)
{
    MPI_Fint f;

    if (!h)
        return 0;
    wmpi_lock_take(&table_lock);
    f = to_fint_locked(h);
    wmpi_lock_release(&table_lock);
    if (f < 0)
        wmpi_abort(MPI_ERR_NO_MEM, "MPI_*_c2f: out of memory for the handle table");
    return f;
}

static void *from_fint(MPI_Fint f)
{
    void *h = NULL;

    wmpi_lock_take(&table_lock);
    if (f > 0 && f < n_slots)
        h = slots[f];
    wmpi_lock_release(&table_lock);
    return h;
}

/* Defines PMPI_<Kind>_c2f and PMPI_<Kind>_f2c; each pair's WMPI_ALIAS
 * lines are written out, as the stub generator looks for them. */
#define CONVERSIONS(Kind, type)                                            \
    MPI_Fint PMPI_##Kind##_c2f(type h) { return to_fint((void *)h); }     \
    type PMPI_##Kind##_f2c(MPI_Fint f) { return (type)from_fint(f); }

CONVERSIONS(Comm, MPI_Comm)
WMPI_ALIAS(Comm_c2f)
WMPI_ALIAS(Comm_f2c)
CONVERSIONS(Errhandler, MPI_Errhandler)
WMPI_ALIAS(Errhandler_c2f)
WMPI_ALIAS(Errhandler_f2c)
CONVERSIONS(File, MPI_File)
WMPI_ALIAS(File_c2f)
WMPI_ALIAS(File_f2c)
CONVERSIONS(Group, MPI_Group)
WMPI_ALIAS(Group_c2f)
WMPI_ALIAS(Group_f2c)
CONVERSIONS(Info, MPI_Info)
WMPI_ALIAS(Info_c2f)
WMPI_ALIAS(Info_f2c)
CONVERSIONS(Message, MPI_Message)
WMPI_ALIAS(Message_c2f)
WMPI_ALIAS(Message_f2c)
CONVERSIONS(Op, MPI_Op)
WMPI_ALIAS(Op_c2f)
WMPI_ALIAS(Op_f2c)
CONVERSIONS(Request, MPI_Request)
WMPI_ALIAS(Request_c2f)
WMPI_ALIAS(Request_f2c)
CONVERSIONS(Type, MPI_Datatype)
WMPI_ALIAS(Type_c2f)
WMPI_ALIAS(Type_f2c)
CONVERSIONS(Win, MPI_Win)
WMPI_ALIAS(Win_c2f)
WMPI_ALIAS(Win_f2c)

/* ------------------------------------------------------------- status */

/* A Fortran status is MPI_Fint[6]: source, tag, error, cancelled, and
 * the byte count's low and high halves. */
enum { F_SOURCE, F_TAG, F_ERROR, F_CANCELLED, F_BYTES_LO, F_BYTES_HI };

int PMPI_Status_c2f(const MPI_Status *c_status, MPI_Fint *f_status)
{
    uint64_t bytes;

    if (!c_status || !f_status)
        return wbind_fail(NULL, MPI_ERR_ARG, "MPI_Status_c2f");
    bytes = (uint64_t)c_status->wmpi_bytes;
    f_status[F_SOURCE] = c_status->MPI_SOURCE;
    f_status[F_TAG] = c_status->MPI_TAG;
    f_status[F_ERROR] = c_status->MPI_ERROR;
    f_status[F_CANCELLED] = c_status->wmpi_cancelled;
    f_status[F_BYTES_LO] = (MPI_Fint)(uint32_t)bytes;
    f_status[F_BYTES_HI] = (MPI_Fint)(uint32_t)(bytes >> 32);
    return MPI_SUCCESS;
}
WMPI_ALIAS(Status_c2f)

int PMPI_Status_f2c(const MPI_Fint *f_status, MPI_Status *c_status)
{
    if (!c_status || !f_status)
        return wbind_fail(NULL, MPI_ERR_ARG, "MPI_Status_f2c");
    c_status->MPI_SOURCE = f_status[F_SOURCE];
    c_status->MPI_TAG = f_status[F_TAG];
    c_status->MPI_ERROR = f_status[F_ERROR];
    c_status->wmpi_cancelled = f_status[F_CANCELLED];
    c_status->wmpi_bytes = (MPI_Count)((uint64_t)(uint32_t)f_status[F_BYTES_LO] |
                                       (uint64_t)(uint32_t)f_status[F_BYTES_HI] << 32);
    return MPI_SUCCESS;
}
WMPI_ALIAS(Status_f2c)
