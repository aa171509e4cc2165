/* The shared-memory segments of an MPI job, measured from inside it, for
 * the MPI benchmark drivers (bench/osu_like, bench/mpi_reactivity): the
 * MPI programs' rank 0 reads /proc/self/maps after MPI_Init and prints
 * one `segments` line (ms_emit); the driver collects those lines
 * (ms_parse) and prints, per variant and job size, what one rank's
 * segment measures beside what Weft's layout says it should (ms_print).
 * See mpi_segments.c for what is counted and where the formula comes
 * from. Plain C, no MPI: both sides compile it.
 */
#ifndef BENCH_MPI_SEGMENTS_H
#define BENCH_MPI_SEGMENTS_H

#include <stdio.h>

#include "bench_util.h"

#define MS_MAX_ENTRIES 24

/* ----------------------------------------------- the MPI program side */

/* Scan this process's mappings and print on f (then flush it):
 *   segments <variant> <np> <lib> <count> <bytes> <exact> <ring>
 * lib: "weft" (memfd weft-mpi-shm), "vader" (Open MPI's
 * /dev/shm/vader_segment.*) or "none"; count: distinct segments mapped;
 * bytes: the largest one's size; exact: 1 if that is the file's size, 0
 * if the mapping's length (whole pages); ring: Weft's ring size read from
 * a segment's header, else 0. */
void ms_emit(FILE *f, const char *variant, int np);

/* ------------------------------------------------------ the driver side */

typedef struct ms_entry {
    char variant[BENCH_NAME_MAX];
    char lib[16];
    int np, count, exact;
    long long bytes, ring;
} ms_entry;

typedef struct ms_table {
    ms_entry e[MS_MAX_ENTRIES];
    int n;
    int varied; /* launches of one (variant, np) disagreed */
} ms_table;

/* If line is a `segments` line, keep it in t (the first of each variant
 * and np; a later one that differs sets t->varied) and return 1; else 0. */
int ms_parse(const char *line, ms_table *t);

/* A segment of Weft's shared-memory transport for nlocal ranks on one
 * host with rings of `ring` bytes (0: the size this file knows), in
 * bytes, by its layout (see mpi_segments.c). */
long long ms_weft_formula(int nlocal, long long ring);

/* Print the section: one line per entry, job sizes ascending and
 * variants in the order of `order` (norder names), then a `result:` line
 * (case shm_segment_np<np>, metric bytes) per entry that found a
 * segment. Prints nothing if t is empty. */
void ms_print(const ms_table *t, const char *const *order, int norder,
              const char *bench, FILE *f);

#endif /* BENCH_MPI_SEGMENTS_H */
