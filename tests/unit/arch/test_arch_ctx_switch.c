/* Behaviour: wf_ctx_switch ping-pongs between two contexts and each side
 * gets back exactly the state it left: locals kept live across switches
 * (so in callee-saved registers), floating-point values, and its own
 * floating-point rounding mode (MXCSR/x87 control word on x86-64, FPCR on
 * AArch64). No runtime needed: the contexts are made by hand. */
#include "test_support.h"

#include <stdint.h>
#include <stdlib.h>

#include "arch/ctx.h"

#if defined(__x86_64__)
#include <xmmintrin.h>
#endif

enum { STACK_SIZE = 64 * 1024, ROUNDS = 100000 };

/* Rounding control, set directly in the hardware register so that the test
 * needs no libm and checks exactly the state the switch must preserve. */
enum rounding { ROUND_NEAREST, ROUND_DOWN, ROUND_UP };

#if defined(__x86_64__)
static void set_rounding(enum rounding r)
{
    static const unsigned sse[] = { 0x0000, 0x2000, 0x4000 };
    static const unsigned short x87[] = { 0x0000, 0x0400, 0x0800 };
    unsigned short cw;

    _mm_setcsr((_mm_getcsr() & ~0x6000u) | sse[r]);
    __asm__ volatile("fnstcw %0" : "=m"(cw));
    cw = (unsigned short)((cw & ~0x0C00u) | x87[r]);
    __asm__ volatile("fldcw %0" : : "m"(cw) : "memory");
}

static enum rounding get_rounding(void)
{
    unsigned short cw;
    unsigned sse = (_mm_getcsr() >> 13) & 3u;

    __asm__ volatile("fnstcw %0" : "=m"(cw));
    assert_int_equal(sse, (cw >> 10) & 3u); /* both units agree */
    return sse == 1 ? ROUND_DOWN : sse == 2 ? ROUND_UP : ROUND_NEAREST;
}
#elif defined(__aarch64__)
static void set_rounding(enum rounding r)
{
    static const unsigned long long rmode[] = { 0, 2, 1 }; /* RN, RM, RP */
    unsigned long long fpcr;

    __asm__ volatile("mrs %0, fpcr" : "=r"(fpcr));
    fpcr = (fpcr & ~(3ull << 22)) | (rmode[r] << 22);
    __asm__ volatile("msr fpcr, %0" : : "r"(fpcr) : "memory");
}

static enum rounding get_rounding(void)
{
    unsigned long long fpcr;

    __asm__ volatile("mrs %0, fpcr" : "=r"(fpcr));
    switch ((fpcr >> 22) & 3u) {
    case 1: return ROUND_UP;
    case 2: return ROUND_DOWN;
    default: return ROUND_NEAREST;
    }
}
#else
#error "test_arch_ctx_switch: no rounding-mode helpers for this CPU"
#endif

/* One third, computed at run time in the current rounding mode (not
 * inlined, so the division cannot move across a rounding change). */
static __attribute__((noinline)) double one_third(void)
{
    volatile double one = 1.0, three = 3.0;
    return one / three;
}

struct pingpong {
    wf_ctx main_ctx, co_ctx;
    long co_rounds;         /* switches the coroutine saw */
    int co_state_ok;        /* coroutine's checks all passed */
};

static struct pingpong pp;

/* A small integer recurrence; its value after n steps is known, so a
 * register clobbered by a switch shows as a wrong result. */
#define STEP(a, b, c, d, e, f, g, h)                                        \
    do {                                                                    \
        a += 1; b += a; c ^= b; d += c * 3; e -= d; f += e ^ a;             \
        g = g * 5 + f; h += g >> 3;                                         \
    } while (0)

static void coroutine(void *arg)
{
    struct pingpong *p = arg;
    uint64_t a = 1, b = 2, c = 3, d = 4, e = 5, f = 6, g = 7, h = 8;
    uint64_t ra = 1, rb = 2, rc = 3, rd = 4, re = 5, rf = 6, rg = 7, rh = 8;
    double x = 0.5, rx = 0.5;
    int ok = 1;

    set_rounding(ROUND_DOWN);
    for (long i = 0; i < ROUNDS; i++) {
        STEP(a, b, c, d, e, f, g, h);
        x = x * 1.000001 + 0.25;
        wf_ctx_switch(&p->co_ctx, &p->main_ctx);
        ok &= get_rounding() == ROUND_DOWN;
        p->co_rounds++;
    }
    for (long i = 0; i < ROUNDS; i++) { /* same work, no switches */
        STEP(ra, rb, rc, rd, re, rf, rg, rh);
        rx = rx * 1.000001 + 0.25;
    }
    ok &= a == ra && b == rb && c == rc && d == rd && e == re && f == rf &&
          g == rg && h == rh && x == rx;
    p->co_state_ok = ok;
    for (;;)
        wf_ctx_switch(&p->co_ctx, &p->main_ctx);
}

static void test_ping_pong_preserves_registers_and_rounding(void **state)
{
    (void)state;
    void *stack = aligned_alloc(4096, STACK_SIZE);
    uint64_t a = 11, b = 12, c = 13, d = 14, e = 15, f = 16, g = 17, h = 18;
    uint64_t ra = 11, rb = 12, rc = 13, rd = 14, re = 15, rf = 16, rg = 17, rh = 18;
    double x = 0.75, rx = 0.75;
    enum rounding saved = get_rounding();

    assert_non_null(stack);
    wf_ctx_make(&pp.co_ctx, stack, STACK_SIZE, coroutine, &pp);
    set_rounding(ROUND_UP);
    for (long i = 0; i <= ROUNDS; i++) {
        STEP(a, b, c, d, e, f, g, h);
        x = x * 0.999999 + 0.5;
        wf_ctx_switch(&pp.main_ctx, &pp.co_ctx);
        assert_int_equal(get_rounding(), ROUND_UP);
    }
    assert_true(one_third() > 0.333333333333333314829616256247); /* up */
    for (long i = 0; i <= ROUNDS; i++) { /* same work, no switches */
        STEP(ra, rb, rc, rd, re, rf, rg, rh);
        rx = rx * 0.999999 + 0.5;
    }
    set_rounding(saved);
    assert_true(a == ra && b == rb && c == rc && d == rd);
    assert_true(e == re && f == rf && g == rg && h == rh);
    assert_true(x == rx);
    assert_int_equal(pp.co_rounds, ROUNDS);
    assert_true(pp.co_state_ok);
    free(stack);
}

/* The rounding mode really changes arithmetic, so the check above is not
 * vacuous: 1/3 rounded up and rounded down differ. */
static void test_rounding_helpers_take_effect(void **state)
{
    (void)state;
    enum rounding saved = get_rounding();
    double up, down;

    set_rounding(ROUND_UP);
    up = one_third();
    set_rounding(ROUND_DOWN);
    down = one_third();
    set_rounding(saved);
    assert_true(up > down);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rounding_helpers_take_effect),
        cmocka_unit_test(test_ping_pong_preserves_registers_and_rounding),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
