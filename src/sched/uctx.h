/* Registers of an interrupted context, read from the ucontext a signal
 * handler receives as its third argument. Async-signal-safe (plain loads).
 * On an architecture not listed both return 0, and callers treat that as
 * "unknown". */
#ifndef WEFT_SCHED_UCTX_H
#define WEFT_SCHED_UCTX_H

#include <stdint.h>
#include <ucontext.h>

/* The interrupted instruction's address. */
static inline uintptr_t wf_uctx_pc(const void *uctx)
{
    const ucontext_t *uc = uctx;
#if defined(__x86_64__)
    return (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
    return (uintptr_t)uc->uc_mcontext.pc;
#else
    (void)uc;
    return 0;
#endif
}

/* The interrupted stack pointer. */
static inline uintptr_t wf_uctx_sp(const void *uctx)
{
    const ucontext_t *uc = uctx;
#if defined(__x86_64__)
    return (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
#elif defined(__aarch64__)
    return (uintptr_t)uc->uc_mcontext.sp;
#else
    (void)uc;
    return 0;
#endif
}

#endif
