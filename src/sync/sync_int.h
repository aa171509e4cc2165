/* Helpers shared by the files of src/sync/. Private to src/sync/. */
#ifndef WF_SYNC_INT_H
#define WF_SYNC_INT_H

#include <weft/sync.h>

/* The identity the sync layer records as a mutex owner: the calling ULT, or
 * for an external kernel thread a per-kernel-thread token (see mutex.c).
 * Never WEFT_THREAD_NULL. */
weft_thread_t wf_sync_caller_id(void);

/* 1 if the caller holds `m`. */
int wf_mutex_is_held_by_caller(weft_mutex_t *m);

#endif /* WF_SYNC_INT_H */
