/* ULT stacks: implements stack.h. Each stack is one anonymous mapping whose
 * lowest page is PROT_NONE, so running off the bottom of a stack faults at
 * once (SIGSEGV) instead of silently overwriting a neighbour; freed stacks
 * go to a bounded pool and are handed out again without a system call.
 *
 *      map                   lo                              lo + size
 *       | guard (PROT_NONE)  | usable, PROT_READ|WRITE, grows down <-- |
 *       |<---- one page ---->|<------------ size (pages) ------------->|
 *
 * Design and trade-offs.
 *  - mmap, not malloc: a page-aligned region we can protect, MAP_STACK for
 *    the kernel's sake and MAP_NORESERVE so that a 256 KiB stack costs only
 *    the pages a thread really touches (typically 1-3 pages, ~4-12 KiB).
 *  - One guard page, as glibc gives pthreads. A frame larger than a page
 *    could jump over it; wf_stack_guard_hit therefore also counts the page
 *    below the guard, so the overflow report still names the thread.
 *  - The pool: mmap + mprotect + munmap cost three system calls and a TLB
 *    shootdown per thread, a pool hit one uncontended lock (figures:
 *    docs/performance-notes.md), and thread create+join must stay far
 *    below pthread's. Pooled stacks keep their touched pages (no madvise on
 *    free: that is a system call again); the bound below caps that memory
 *    at POOL_DEPTH stacks per size class, 16 MiB for 64 default stacks.
 *  - Size classes are exact usable sizes (after rounding to pages): almost
 *    every thread uses the default size, so a handful of classes suffice.
 *    A size that finds no class slot is simply not pooled.
 *  - A plain pthread mutex guards the pool: the scheduler calls in here
 *    from thread context (create, reap), never from a signal handler, and
 *    the critical sections are a few loads and stores.
 *
 * Invariants.
 *  - pool_lock guards pool[] and every field in it.
 *  - A pooled mapping has map_len == class size + one page and its guard
 *    page still PROT_NONE (usable pages are never re-protected).
 *  - wf_stack_guard_hit reads only its argument: async-signal-safe.
 *  - Under AddressSanitizer a freed stack's shadow is cleared, so leftover
 *    redzones of a thread that never returned cannot trip its successor.
 *  - The default size is computed once (pthread_once) and never changes;
 *    a bad WEFT_STACK_SIZE is reported once.
 */
#include "sched/stack.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "weft/errno.h"

#if defined(__SANITIZE_ADDRESS__)
#define STACK_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define STACK_ASAN 1
#endif
#endif
#ifdef STACK_ASAN
#include <sanitizer/asan_interface.h>
#endif

enum {
    POOL_CLASSES = 8,  /* distinct usable sizes the pool keeps */
    POOL_DEPTH = 64,   /* stacks kept per size */
};

#define DEFAULT_STACK_SIZE ((size_t)256 * 1024)
#define MIN_STACK_SIZE ((size_t)16 * 1024)

struct size_class {
    size_t size;             /* usable bytes; 0 = slot unused */
    int count;               /* stacks in maps[] */
    void *maps[POOL_DEPTH];  /* mapping starts (guard page first) */
};

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static struct size_class pool[POOL_CLASSES];

static size_t page_size(void)
{
    static size_t cached; /* racing first calls store the same value */
    size_t p = __atomic_load_n(&cached, __ATOMIC_RELAXED);

    if (p == 0) {
        long v = sysconf(_SC_PAGESIZE);
        p = v > 0 ? (size_t)v : 4096;
        __atomic_store_n(&cached, p, __ATOMIC_RELAXED);
    }
    return p;
}

/* Round up to whole pages; 0 on overflow. */
static size_t round_to_pages(size_t size)
{
    size_t page = page_size();

    if (size > SIZE_MAX - (page - 1) - page)
        return 0;
    return (size + page - 1) & ~(page - 1);
}

static void describe(wf_stack *s, void *map, size_t size)
{
    size_t page = page_size();

    s->map = map;
    s->map_len = size + page;
    s->lo = (char *)map + page;
    s->size = size;
}

/* ---- pool ------------------------------------------------------------ */

/* The class for `size`, or NULL; with `claim`, take a free slot for it. */
static struct size_class *find_class(size_t size, int claim)
{
    struct size_class *unused = NULL;

    for (int i = 0; i < POOL_CLASSES; i++) {
        if (pool[i].size == size)
            return &pool[i];
        if (pool[i].size == 0 && unused == NULL)
            unused = &pool[i];
    }
    if (claim && unused != NULL)
        unused->size = size;
    return claim ? unused : NULL;
}

static void *pool_take(size_t size)
{
    void *map = NULL;

    pthread_mutex_lock(&pool_lock);
    struct size_class *c = find_class(size, 0);
    if (c != NULL && c->count > 0)
        map = c->maps[--c->count];
    pthread_mutex_unlock(&pool_lock);
    return map;
}

/* 1 if the pool kept `map`, 0 if the caller must unmap it. */
static int pool_put(void *map, size_t size)
{
    int kept = 0;

    pthread_mutex_lock(&pool_lock);
    struct size_class *c = find_class(size, 1);
    if (c != NULL && c->count < POOL_DEPTH) {
        c->maps[c->count++] = map;
        kept = 1;
    }
    pthread_mutex_unlock(&pool_lock);
    return kept;
}

void wf_stack_pool_drain(void)
{
    size_t page = page_size();

    pthread_mutex_lock(&pool_lock);
    for (int i = 0; i < POOL_CLASSES; i++) {
        while (pool[i].count > 0)
            munmap(pool[i].maps[--pool[i].count], pool[i].size + page);
        pool[i].size = 0;
    }
    pthread_mutex_unlock(&pool_lock);
}

/* ---- mapping --------------------------------------------------------- */

static void *map_stack(size_t size)
{
    size_t page = page_size();
    void *map = mmap(NULL, size + page, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK | MAP_NORESERVE,
                     -1, 0);

    if (map == MAP_FAILED)
        return NULL;
    if (mprotect(map, page, PROT_NONE) != 0) {
        munmap(map, size + page);
        return NULL;
    }
    return map;
}

int wf_stack_alloc(wf_stack *s, size_t size)
{
    void *map;

    memset(s, 0, sizeof *s);
    size = round_to_pages(size == 0 ? wf_stack_default_size() : size);
    if (size == 0)
        return WEFT_ENOMEM;
    map = pool_take(size);
    if (map == NULL)
        map = map_stack(size);
    if (map == NULL)
        return WEFT_ENOMEM;
    describe(s, map, size);
    return 0;
}

/* A thread that ends by switching away never unwinds its frames, so under
 * AddressSanitizer their redzones stay poisoned; clear them before the
 * stack serves another thread. */
void wf_stack_forget_frames(wf_stack *s)
{
#ifdef STACK_ASAN
    __asan_unpoison_memory_region(s->lo, s->size);
#else
    (void)s;
#endif
}

void wf_stack_free(wf_stack *s)
{
    if (s->map == NULL)
        return;
    wf_stack_forget_frames(s);
    if (!pool_put(s->map, s->size))
        munmap(s->map, s->map_len);
    memset(s, 0, sizeof *s);
}

int wf_stack_guard_hit(const wf_stack *s, const void *addr)
{
    uintptr_t a = (uintptr_t)addr;
    uintptr_t guard_lo = (uintptr_t)s->map;
    uintptr_t guard_len;

    if (s->map == NULL)
        return 0;
    guard_len = (uintptr_t)s->lo - guard_lo;
    if (guard_lo >= guard_len) /* room for the page below the guard */
        guard_lo -= guard_len;
    return a >= guard_lo && a < (uintptr_t)s->lo;
}

/* ---- default size ---------------------------------------------------- */

/* Parse "<digits>[kKmM]" into bytes; 0 if malformed or overflowing. */
static size_t parse_size(const char *text)
{
    size_t value = 0, unit = 1;
    const char *p = text;

    for (; *p >= '0' && *p <= '9'; p++) {
        if (value > (SIZE_MAX - 9) / 10)
            return 0;
        value = value * 10 + (size_t)(*p - '0');
    }
    if (p == text)
        return 0;
    if (*p == 'k' || *p == 'K')
        unit = 1024, p++;
    else if (*p == 'm' || *p == 'M')
        unit = 1024 * 1024, p++;
    if (*p != '\0' || value > SIZE_MAX / unit)
        return 0;
    return value * unit;
}

static size_t default_size;
static pthread_once_t default_size_once = PTHREAD_ONCE_INIT;

static void read_default_size(void)
{
    const char *env = getenv("WEFT_STACK_SIZE");
    size_t size = env != NULL ? parse_size(env) : DEFAULT_STACK_SIZE;

    if (size < MIN_STACK_SIZE) {
        fprintf(stderr, "weft: WEFT_STACK_SIZE=\"%s\" is invalid or below "
                        "16 KiB; using 256 KiB\n", env);
        size = DEFAULT_STACK_SIZE;
    }
    default_size = size;
}

size_t wf_stack_default_size(void)
{
    pthread_once(&default_size_once, read_default_size);
    return default_size;
}
