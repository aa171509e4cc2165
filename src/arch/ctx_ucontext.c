/* Context switch fallback on makecontext/swapcontext: implements ctx.h when
 * the build sets WEFT_USE_UCONTEXT (CMake option of the same name), for
 * CPUs without an assembly switch or to compare against one.
 *
 * Design. wf_ctx holds a whole ucontext_t. wf_ctx_make points a fresh
 * context at the given stack and at a trampoline that calls entry(arg);
 * wf_ctx_switch is swapcontext. makecontext passes only int arguments, so
 * the entry and arg pointers travel as 32-bit halves (the portable idiom;
 * passing a pointer as one vararg works on glibc x86-64 but is not
 * promised).
 *
 * Trade-off. swapcontext saves and restores the signal mask with a
 * rt_sigprocmask system call on every switch: roughly 0.3-1 us against a
 * few ns for the register swap, and it breaks the design rule "no signal
 * mask on the switch path" (a context saved inside a signal handler
 * resumes with that signal blocked). It is correct, portable and slow:
 * a fallback only, never the default.
 *
 * Invariants: entry never returns (the trampoline aborts if it does);
 * uc_link is NULL; this file allocates nothing and takes no locks.
 *
 * The file is always compiled (src/CMakeLists.txt globs it); without
 * WEFT_USE_UCONTEXT it holds only a typedef, so the unit is not empty.
 */
#include "arch/ctx.h"

#ifdef WEFT_USE_UCONTEXT

#include <stdint.h>
#include <stdlib.h>

static uintptr_t join_halves(unsigned hi, unsigned lo)
{
    return ((uintptr_t)hi << 16 << 16) | (uintptr_t)lo;
}

static void trampoline(unsigned entry_hi, unsigned entry_lo, unsigned arg_hi,
                       unsigned arg_lo)
{
    wf_ctx_entry entry = (wf_ctx_entry)join_halves(entry_hi, entry_lo);

    entry((void *)join_halves(arg_hi, arg_lo));
    abort(); /* entry must not return */
}

void wf_ctx_make(wf_ctx *ctx, void *stack_lo, size_t size, wf_ctx_entry entry,
                 void *arg)
{
    uintptr_t e = (uintptr_t)entry, a = (uintptr_t)arg;

    if (getcontext(&ctx->uc) != 0)
        abort(); /* cannot fail on Linux for a valid pointer */
    ctx->uc.uc_stack.ss_sp = stack_lo;
    ctx->uc.uc_stack.ss_size = size;
    ctx->uc.uc_link = NULL;
    makecontext(&ctx->uc, (void (*)(void))trampoline, 4,
                (unsigned)(e >> 16 >> 16), (unsigned)e,
                (unsigned)(a >> 16 >> 16), (unsigned)a);
}

void wf_ctx_switch(wf_ctx *from, wf_ctx *to)
{
    if (swapcontext(&from->uc, &to->uc) != 0)
        abort(); /* only EFAULT-like misuse can fail */
}

#else

typedef int wf_ctx_ucontext_unused;

#endif /* WEFT_USE_UCONTEXT */
