/* The runtime lock for programs (weft_rtlock_t): the scheduler's own lock,
 * wf_lock (sched/lock.c: a spin, then a futex sleep; the holder in a
 * runtime critical section), under a public name, so that a library that
 * shares state with the I/O server's callbacks uses the same lock the
 * runtime does rather than futex code of its own.
 */
#include <weft/sync.h>

#include "sched/sched.h"

void weft_rtlock_lock(weft_rtlock_t *l)
{
    wf_lock(&l->word);
}

int weft_rtlock_trylock(weft_rtlock_t *l)
{
    return wf_trylock(&l->word);
}

void weft_rtlock_unlock(weft_rtlock_t *l)
{
    wf_unlock(&l->word);
}
