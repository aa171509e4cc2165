/* The engine lock's slow paths: a kernel thread's sleep behind a brief
 * holder and the release's wake (the design is in lock.h). */
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "engine/lock.h"

/* A kernel thread takes the lock, sleeping while it is held: it marks the
 * lock contended (2) so that the release wakes it, and owns the lock,
 * still marked, once its exchange found it free (a third waiter may
 * sleep meanwhile, and the mark makes that release wake it too). */
void wmpi_lock_sleep(wmpi_lock *l)
{
    while (__atomic_exchange_n(&l->held, 2, __ATOMIC_ACQUIRE) != 0)
        syscall(SYS_futex, &l->held, FUTEX_WAIT_PRIVATE, 2, NULL, NULL, 0);
}

void wmpi_lock_wake(wmpi_lock *l)
{
    syscall(SYS_futex, &l->held, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

