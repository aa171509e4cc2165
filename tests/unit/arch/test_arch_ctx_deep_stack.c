/* Behaviour: a context made by wf_ctx_make starts with the stack alignment
 * the ABI promises (16 bytes at function entry) and can use most of a
 * small stack — here at least three quarters of it, with a switch away and
 * back at the deepest point — without corrupting its frames or touching
 * memory outside [stack_lo, stack_lo + size). No runtime needed. */
#include "test_support.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arch/ctx.h"

enum {
    STACK_SIZE = 64 * 1024,
    CANARY = 4096,          /* bytes checked on each side of the stack */
    FRAME_BYTES = 1024,     /* filler per recursion level */
    MAX_DEPTH = STACK_SIZE / FRAME_BYTES,
};

struct deep {
    wf_ctx main_ctx, co_ctx;
    unsigned char *lo;       /* usable stack [lo, lo + STACK_SIZE) */
    int entry_aligned;       /* alignment checks at entry passed */
    uintptr_t deepest;       /* lowest local address reached */
    int depth;               /* recursion depth reached */
    int frames_intact;       /* every frame's filler survived */
    int finished;
};

static struct deep dp;

/* The frames below must live on the context's real stack: keep them out
 * of AddressSanitizer's heap-allocated "fake stack" frames, which it uses
 * when detect_stack_use_after_return is on. */
#define REAL_STACK_FRAME __attribute__((no_sanitize_address))

static unsigned char pattern(int depth, int i)
{
    return (unsigned char)(depth * 31 + i * 7 + 1);
}

/* Recurse until three quarters of the stack are in use, switch to main at
 * the bottom, then check each frame's filler on the way back up. */
static __attribute__((noinline)) REAL_STACK_FRAME int dig(struct deep *d, int depth)
{
    volatile unsigned char fill[FRAME_BYTES];
    int ok = 1;

    for (int i = 0; i < FRAME_BYTES; i++)
        fill[i] = pattern(depth, i);
    d->deepest = (uintptr_t)&fill[0];
    d->depth = depth;
    if (d->deepest > (uintptr_t)d->lo + STACK_SIZE / 4 && depth < MAX_DEPTH)
        ok = dig(d, depth + 1);
    else
        wf_ctx_switch(&d->co_ctx, &d->main_ctx);
    for (int i = 0; i < FRAME_BYTES; i++)
        ok &= fill[i] == pattern(depth, i);
    return ok;
}

static REAL_STACK_FRAME void entry(void *arg)
{
    struct deep *d = arg;
    _Alignas(16) volatile char probe[16];

    probe[0] = 0;
    d->entry_aligned = (uintptr_t)__builtin_frame_address(0) % 16 == 0 &&
                       (uintptr_t)&probe[0] % 16 == 0;
    d->frames_intact = dig(d, 0);
    d->finished = 1;
    for (;;)
        wf_ctx_switch(&d->co_ctx, &d->main_ctx);
}

/* Scribble over the main stack while the context sleeps at its deepest. */
static __attribute__((noinline)) void busy_main_stack(void)
{
    volatile unsigned char junk[8192];

    memset((void *)junk, 0xA5, sizeof junk);
}

static int all_bytes_are(const unsigned char *p, size_t n, unsigned char v)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != v)
            return 0;
    return 1;
}

static void test_deep_stack_use_is_aligned_and_uncorrupted(void **state)
{
    (void)state;
    unsigned char *buf = aligned_alloc(4096, STACK_SIZE + 2 * CANARY);

    assert_non_null(buf);
    memset(buf, 0x5A, STACK_SIZE + 2 * CANARY);
    dp.lo = buf + CANARY;
    wf_ctx_make(&dp.co_ctx, dp.lo, STACK_SIZE, entry, &dp);
    wf_ctx_switch(&dp.main_ctx, &dp.co_ctx); /* runs down to the bottom */
    assert_false(dp.finished);
    busy_main_stack();
    wf_ctx_switch(&dp.main_ctx, &dp.co_ctx); /* unwinds and checks */
    assert_true(dp.finished);
    assert_true(dp.entry_aligned);
    assert_true(dp.frames_intact);
    assert_true(dp.deepest >= (uintptr_t)dp.lo);
    assert_true(dp.deepest <= (uintptr_t)dp.lo + STACK_SIZE / 4);
    assert_true(all_bytes_are(buf, CANARY, 0x5A));
    assert_true(all_bytes_are(dp.lo + STACK_SIZE, CANARY, 0x5A));
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_deep_stack_use_is_aligned_and_uncorrupted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
