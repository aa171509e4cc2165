/* Collective slots: what the shared-memory transport offers collectives
 * besides frames (used by engine/coll/coll_shm.c).
 *
 * Every rank's segment ends with WMPI_SHM_SLOTS slots; a communicator
 * whose ranks all share this host uses slot ctx / 2 in each member's
 * segment (context ids are unique among a process's live communicators,
 * so no two of them share a slot). A slot holds two counters and a data
 * area, written only by the segment's owner and read by the other members
 * while a collective runs: `arrive` says how far the owner has published
 * its part, `done` how far it has finished reading the others'. Both only
 * grow, so a waiter compares with >=.
 *
 * A member that waits for another's counter may sleep: the writer
 * announces every store to the peers that may wait for it
 * (wmpi_shm_slots_published), which rings the doorbell of each such peer
 * asleep, and a thread about to sleep sees any announcement to it that it
 * has not polled for (shm.c, sleeping()).
 */
#ifndef WMPI_SHM_SLOTS_H
#define WMPI_SHM_SLOTS_H

#include <stdint.h>

#define WMPI_SHM_SLOTS     32   /* communicators with ctx / 2 below this */
#define WMPI_SHM_SLOT_DATA 4096 /* bytes a collective may move through one */

typedef struct wmpi_shm_slot {
    _Alignas(64) uint64_t arrive;
    _Alignas(64) uint64_t done;
    _Alignas(64) unsigned char data[WMPI_SHM_SLOT_DATA];
} wmpi_shm_slot;

typedef struct wmpi_transport wmpi_transport;

/* Slot `slot` of world rank `rank`'s segment (this rank's own included),
 * or NULL if this rank does not reach `rank` through shared memory or the
 * slot does not exist. Never blocks. */
wmpi_shm_slot *wmpi_shm_slot_of(wmpi_transport *t, int rank, int slot);

/* 1 if world rank `rank` is gone (its process exited, or its ring broke).
 * Lock-free; never blocks. */
int wmpi_shm_rank_gone(wmpi_transport *t, int rank);

/* After stores to this rank's slots that the world ranks `ranks[0..n)`
 * may wait for: count them for each of those ranks (one about to sleep
 * polls instead), and ring the doorbell of each that sleeps. Only the
 * ranks listed are told. Any thread, no lock; never blocks. */
void wmpi_shm_slots_published(wmpi_transport *t, const int *ranks, int n);

#endif /* WMPI_SHM_SLOTS_H */
