/* Thread-local keys for user-level threads (the ULT analogue of
 * pthread_key_create / pthread_getspecific).
 *
 * Design. A process-wide table of WEFT_KEYS_MAX slots holds, per key, an
 * "in use" flag, a generation number and the destructor. Each ULT that
 * calls weft_key_set() gets a lazily allocated array of WEFT_KEYS_MAX
 * (value, generation) pairs, hung off the scheduler's per-thread slot
 * (wf_thread_keys_slot). A value counts only if its generation matches the
 * key's: deleting a key and creating a new one in the same slot bumps the
 * generation, so every thread sees NULL for the new key without the
 * library having to visit every thread (which M:N makes costly).
 *
 * Thread exit. The scheduler calls the sync layer's exit hook on the
 * exiting ULT's own stack; it runs the destructors of the live, non-NULL
 * values (each value is cleared before its destructor runs), repeating up
 * to WEFT_KEY_DESTRUCTOR_ROUNDS times while destructors set new values,
 * like POSIX's PTHREAD_DESTRUCTOR_ITERATIONS, then frees the array. The
 * main thread never exits through the hook, so its array (if any) is not
 * freed at weft_fini; that is a one-off allocation, not a leak per thread.
 *
 * Trade-off: 2 KiB (128 x 16 bytes) per ULT that uses keys, allocated
 * once; get/set are an index and a compare, no lock. A growable array would
 * save memory for threads that use one key but add a branch and a realloc.
 *
 * Locks: table_lock (a spin lock, taken with wf_lock) guards create and
 * delete of table slots. Readers (get/set/exit hook) read the slot's words
 * atomically without it: a key deleted concurrently with its use is the
 * caller's race, as in POSIX, but never a memory-safety issue. A thread's
 * array is touched only by that thread.
 */
#include <stdint.h>
#include <stdlib.h>
#include <weft/sync.h>

#include "sched/sched.h"

#define WEFT_KEY_DESTRUCTOR_ROUNDS 4

typedef struct key_slot {
    int       in_use;          /* atomic */
    uint64_t  generation;      /* atomic; bumped by each create */
    void    (*destructor)(void *); /* atomic */
} key_slot;

typedef struct key_value {
    void    *value;
    uint64_t generation;
} key_value;

static key_slot key_table[WEFT_KEYS_MAX];
static int table_lock;

static void run_key_destructors(wf_thread *t);

static int slot_is_live(unsigned i)
{
    return __atomic_load_n(&key_table[i].in_use, __ATOMIC_ACQUIRE);
}

static uint64_t slot_generation(unsigned i)
{
    return __atomic_load_n(&key_table[i].generation, __ATOMIC_ACQUIRE);
}

static int claim_free_slot(void (*destructor)(void *))
{
    for (unsigned i = 0; i < WEFT_KEYS_MAX; i++) {
        key_slot *s = &key_table[i];
        if (s->in_use)
            continue;
        __atomic_store_n(&s->destructor, destructor, __ATOMIC_RELAXED);
        __atomic_store_n(&s->generation, s->generation + 1, __ATOMIC_RELAXED);
        __atomic_store_n(&s->in_use, 1, __ATOMIC_RELEASE);
        return (int)i;
    }
    return WEFT_EAGAIN;
}

int weft_key_create(weft_key_t *key, void (*destructor)(void *))
{
    int slot;

    if (!key)
        return WEFT_EINVAL;
    wf_sched_set_exit_hook(run_key_destructors);
    wf_lock(&table_lock);
    slot = claim_free_slot(destructor);
    wf_unlock(&table_lock);
    if (slot < 0)
        return slot;
    *key = (weft_key_t)slot;
    return 0;
}

int weft_key_delete(weft_key_t key)
{
    int was_live = 0;

    if (key >= WEFT_KEYS_MAX)
        return WEFT_EINVAL;
    wf_lock(&table_lock);
    if (key_table[key].in_use) {
        __atomic_store_n(&key_table[key].in_use, 0, __ATOMIC_RELEASE);
        was_live = 1;
    }
    wf_unlock(&table_lock);
    return was_live ? 0 : WEFT_EINVAL;
}

/* The calling ULT's value array; allocated if `create`. NULL if the
 * caller is not a ULT, or (with create) out of memory. */
static key_value *values_of_caller(int create)
{
    wf_thread *self = wf_self();
    void **slot;

    if (!self)
        return NULL;
    slot = wf_thread_keys_slot(self);
    if (!*slot && create)
        *slot = calloc(WEFT_KEYS_MAX, sizeof(key_value));
    return *slot;
}

int weft_key_set(weft_key_t key, const void *value)
{
    key_value *values;

    if (key >= WEFT_KEYS_MAX || !slot_is_live(key) || !wf_self())
        return WEFT_EINVAL;
    values = values_of_caller(1);
    if (!values)
        return WEFT_ENOMEM;
    values[key].value = (void *)value;
    values[key].generation = slot_generation(key);
    return 0;
}

void *weft_key_get(weft_key_t key)
{
    key_value *values;

    if (key >= WEFT_KEYS_MAX || !slot_is_live(key))
        return NULL;
    values = values_of_caller(0);
    if (!values || values[key].generation != slot_generation(key))
        return NULL;
    return values[key].value;
}

/* One destructor pass; returns how many destructors ran. */
static int destructor_round(key_value *values)
{
    int ran = 0;

    for (unsigned i = 0; i < WEFT_KEYS_MAX; i++) {
        void (*dtor)(void *);
        void *v = values[i].value;
        if (!v || !slot_is_live(i) || values[i].generation != slot_generation(i))
            continue;
        dtor = __atomic_load_n(&key_table[i].destructor, __ATOMIC_RELAXED);
        values[i].value = NULL;
        if (dtor) {
            dtor(v);
            ran++;
        }
    }
    return ran;
}

static void run_key_destructors(wf_thread *t)
{
    void **slot = wf_thread_keys_slot(t);

    if (!*slot)
        return;
    for (int round = 0; round < WEFT_KEY_DESTRUCTOR_ROUNDS; round++) {
        if (destructor_round(*slot) == 0)
            break;
    }
    free(*slot);
    *slot = NULL;
}
