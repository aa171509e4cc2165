/* Collective slots (shm_slots.h): finding a member's slot, and the
 * doorbell handshake for a member waiting on one.
 *
 * Design. A writer's store to a slot, then its announcement to each peer
 * that may wait for it (a seq_cst increment of `heard` in that peer's
 * control line), then a seq_cst read of that peer's `asleep`; a thread
 * about to sleep stores `asleep`, then reads its own `heard` (shm.c,
 * sleeping()). As for ring positions, one of the two sees the other: the
 * writer rings, or the sleeper finds a count it has not polled for and
 * polls instead. The increment is an atomic read-modify-write because
 * several ranks (and several threads of a rank) may announce to one peer
 * at once, and a lost increment could hide a store from a sleeper;
 * collectives alone pay it, never a message. Announcing to the peers that
 * may wait, rather than counting in the writer's own line for everyone
 * to sum, keeps a sleeper's look at one word, and lets a member sleep
 * while other members announce stores that do not concern it (256 ranks
 * arriving at a barrier one after the other kept every early one awake:
 * docs/performance-notes.md).
 *
 * Locking: none; every shared word is an atomic.
 */
#include "transport/shm.h"

wmpi_shm_slot *wmpi_shm_slot_of(struct wmpi_transport *t, int rank, int slot)
{
    if (!t || !t->ctl || slot < 0 || slot >= WMPI_SHM_SLOTS || rank < 0 || rank >= t->size)
        return NULL;
    if (rank == t->rank)
        return &wmpi_shm_slots(t->ctl)[slot];
    shm_peer *p = &t->peers[rank];
    return p->on ? &wmpi_shm_slots(p->peer_ctl)[slot] : NULL;
}

int wmpi_shm_rank_gone(struct wmpi_transport *t, int rank)
{
    return rank != t->rank && __atomic_load_n(&t->peers[rank].dead, __ATOMIC_RELAXED);
}

void wmpi_shm_slots_published(struct wmpi_transport *t, const int *ranks, int n)
{
    for (int i = 0; i < n; i++) {
        shm_peer *p = &t->peers[ranks[i]];

        if (ranks[i] == t->rank || !p->on || __atomic_load_n(&p->dead, __ATOMIC_RELAXED))
            continue;
        __atomic_fetch_add(&p->peer_ctl->heard, 1, __ATOMIC_SEQ_CST);
        if (__atomic_load_n(&p->peer_ctl->asleep, __ATOMIC_SEQ_CST))
            wmpi_shm_ring_bell(p->bell);
    }
}

uint64_t wmpi_shm_slots_heard(struct wmpi_transport *t)
{
    return __atomic_load_n(&t->ctl->heard, __ATOMIC_SEQ_CST);
}
