/* Machine contexts: the only code that knows registers and stack layouts.
 *
 * One interface, three implementations chosen at build time:
 *   ctx_x86_64_sysv.S  register swap for x86-64 (System V ABI)
 *   ctx_aarch64.S      register swap for AArch64 (AAPCS64)
 *   ctx_ucontext.c     makecontext/swapcontext fallback (WEFT_USE_UCONTEXT)
 * The assembly versions save only the callee-saved registers plus the
 * floating-point control state (x86: MXCSR and x87 control word; AArch64:
 * FPCR), on the stack being left, and keep just the stack pointer in the
 * wf_ctx. No signal mask is saved or restored: that is the point.
 * This layer allocates nothing and takes no locks.
 */
#ifndef WF_ARCH_CTX_H
#define WF_ARCH_CTX_H

#include <stddef.h>

#ifdef WEFT_USE_UCONTEXT
#include <ucontext.h>
typedef struct wf_ctx {
    ucontext_t uc;
} wf_ctx;
#else
typedef struct wf_ctx {
    void *sp; /* saved stack pointer; the registers sit on that stack */
} wf_ctx;
#endif

typedef void (*wf_ctx_entry)(void *arg);

/* Prepare `ctx` so that the first wf_ctx_switch() to it runs entry(arg) on
 * the stack [stack_lo, stack_lo + size). `entry` must never return (it ends
 * by switching away for good). The stack top is 16-byte aligned. */
void wf_ctx_make(wf_ctx *ctx, void *stack_lo, size_t size, wf_ctx_entry entry,
                 void *arg);

/* Save the caller's context into *from and resume *to. Returns when some
 * thread switches back to *from. from != to. */
void wf_ctx_switch(wf_ctx *from, wf_ctx *to);

#endif /* WF_ARCH_CTX_H */
