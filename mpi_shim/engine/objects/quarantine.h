/* Freed handle objects kept owned for a while, so that the validity check
 * of a handle used after its free reads memory the library still owns
 * (engine/objects/quarantine.c has the design).
 *
 * Use: an object whose handle the bindings check by a live mark clears
 * the mark, then passes its memory to wmpi_quarantine_put instead of
 * free(). The object must have been malloc'd and must need nothing else
 * done at free time: the quarantine calls free() on it later.
 *
 * Threads: any thread; one leaf lock, held for a few stores; never blocks
 * the caller for longer and never calls user code.
 */
#ifndef WMPI_QUARANTINE_H
#define WMPI_QUARANTINE_H

/* Keep `shell` (malloc'd, its live mark cleared) instead of freeing it;
 * the oldest shell is freed if the quarantine is full. NULL is ignored. */
void wmpi_quarantine_put(void *shell);

/* Free every shell kept (MPI_Finalize: no handle may be used after it). */
void wmpi_quarantine_flush(void);

#endif /* WMPI_QUARANTINE_H */
