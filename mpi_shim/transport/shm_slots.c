/* Collective slots (shm_slots.h): finding a member's slot, and the
 * doorbell handshake for a member waiting on one.
 *
 * Design. A writer's store to a slot, then its announcement (a seq_cst
 * increment of slots_published in its own control line), then a seq_cst
 * read of each waiting peer's `asleep`; a thread about to sleep stores
 * `asleep`, then sums the peers' slots_published (shm.c, sleeping()). As
 * for ring positions, one of the two sees the other: the writer rings, or
 * the sleeper finds a sum it has not polled for and polls instead. The
 * increment is an atomic read-modify-write because several threads of a
 * rank may announce at once (collectives on different communicators) and
 * a lost increment could hide a store from a sleeper; it touches the
 * writer's own line only, and collectives alone pay it, never a message.
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
    __atomic_fetch_add(&t->ctl->slots_published, 1, __ATOMIC_SEQ_CST);
    for (int i = 0; i < n; i++) {
        shm_peer *p = &t->peers[ranks[i]];

        if (ranks[i] != t->rank && p->on && !__atomic_load_n(&p->dead, __ATOMIC_RELAXED) &&
            __atomic_load_n(&p->peer_ctl->asleep, __ATOMIC_SEQ_CST))
            wmpi_shm_ring_bell(p->bell);
    }
}

uint64_t wmpi_shm_slots_heard(struct wmpi_transport *t)
{
    uint64_t sum = 0;

    for (int i = 0; i < t->nlocal; i++) {
        shm_peer *p = &t->peers[t->local[i]];

        if (p->on)
            sum += __atomic_load_n(&p->peer_ctl->slots_published, __ATOMIC_SEQ_CST);
    }
    return sum;
}
