/* ULT stacks: mmap'ed regions with a PROT_NONE guard page below the usable
 * part, kept in a pool for reuse. Private to src/sched/. */
#ifndef WF_SCHED_STACK_H
#define WF_SCHED_STACK_H

#include <stddef.h>

typedef struct wf_stack {
    void  *map;     /* start of the mapping (the guard page) */
    size_t map_len; /* whole mapping, guard included */
    void  *lo;      /* lowest usable byte (just above the guard) */
    size_t size;    /* usable bytes */
} wf_stack;

/* Get a stack of at least `size` usable bytes (rounded up to pages; 0 means
 * wf_stack_default_size()), from the pool when one of that size is free.
 * Returns 0, or WEFT_ENOMEM with *s zeroed. Thread-safe; not for signal
 * handlers. */
int wf_stack_alloc(wf_stack *s, size_t size);

/* Forget the frames of a thread that ended by switching away (under
 * AddressSanitizer their redzones stay poisoned otherwise), before the
 * stack serves another thread without going through the pool. */
void wf_stack_forget_frames(wf_stack *s);

/* Return a stack to the pool (or unmap it when the pool is full) and zero
 * *s; freeing a zeroed wf_stack does nothing. Thread-safe. */
void wf_stack_free(wf_stack *s);

/* 1 if `addr` lies in the guard region of `s` (or within one page below
 * it, where a large frame may land first), else 0. Signal-safe. */
int wf_stack_guard_hit(const wf_stack *s, const void *addr);

/* Default usable size: WEFT_STACK_SIZE if set and valid, else 256 KiB. */
size_t wf_stack_default_size(void);

/* Unmap every pooled stack (at weft_fini). */
void wf_stack_pool_drain(void);

#endif /* WF_SCHED_STACK_H */
