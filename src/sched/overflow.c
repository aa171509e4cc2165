/* Stack overflow reporting.
 *
 * Every ULT stack has a PROT_NONE guard page below it (stack.c). A thread
 * that runs off its stack faults there; the fault cannot be handled on the
 * thread's own (full) stack, so each worker has an alternate signal stack
 * and the SIGSEGV/SIGBUS handler runs with SA_ONSTACK. If the fault address
 * is in the current thread's guard region, the handler writes
 *     weft: stack overflow in thread <name> (id <n>)
 * to stderr with write(2) (async-signal-safe) and aborts.
 *
 * A thread can also overflow without touching the guard: a signal whose
 * handler runs on the thread's stack (the preemption tick, an
 * application's handler) arrives while less than one signal frame is left
 * above the guard. The kernel cannot push the frame and sends SIGSEGV with
 * si_code SI_KERNEL and no address instead. That case is recognised by the
 * interrupted stack pointer lying within one frame (the kernel's
 * AT_MINSIGSTKSZ, plus the red zone) of the stack's bottom. Any other fault
 * goes to the handler that was installed before Weft's (a sanitizer's, the
 * application's), or to the default action: we restore it and return, the
 * faulting instruction runs again and the process dies as it would have.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "sched/crash.h"
#include "sched/sched_internal.h"
#include "sched/uctx.h"

#define ALTSTACK_SIZE (64 * 1024)
#define RED_ZONE 128         /* below the stack pointer, left alone by the kernel */
#define FALLBACK_FRAME 4096  /* when the kernel does not say (AT_MINSIGSTKSZ) */

static struct sigaction old_segv, old_bus;
static uintptr_t signal_frame_room; /* set at install, read in the handler */

static size_t fmt_u64(char *buf, uint64_t v)
{
    char tmp[24];
    size_t n = 0, len = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        buf[len++] = tmp[--n];
    return len;
}

static void report_overflow(wf_thread *t)
{
    if (!t->name[0])
        wf_thread_fill_name(t);
    char msg[128];
    size_t len = 0;
    const char *parts[] = { "weft: stack overflow in thread ", t->name, " (id " };
    for (size_t i = 0; i < 3; i++) {
        size_t n = strnlen(parts[i], 48);
        memcpy(msg + len, parts[i], n);
        len += n;
    }
    len += fmt_u64(msg + len, t->id);
    msg[len++] = ')';
    msg[len++] = '\n';
    ssize_t ignored = write(STDERR_FILENO, msg, len);
    (void)ignored;
}

static void chain(int sig, siginfo_t *si, void *uctx)
{
    struct sigaction *old = sig == SIGSEGV ? &old_segv : &old_bus;
    if ((old->sa_flags & SA_SIGINFO) && old->sa_sigaction) {
        old->sa_sigaction(sig, si, uctx);
        return;
    }
    if (old->sa_handler != SIG_DFL && old->sa_handler != SIG_IGN) {
        old->sa_handler(sig);
        return;
    }
    signal(sig, SIG_DFL);
    raise(sig); /* blocked in this handler: delivered, and fatal, on return */
}

/* 1 if the kernel sent this SIGSEGV because a signal frame did not fit
 * above the guard of `s`. */
static int frame_did_not_fit(const wf_stack *s, const siginfo_t *si, const void *uctx)
{
    uintptr_t sp = wf_uctx_sp(uctx), lo = (uintptr_t)s->lo;
    return si->si_signo == SIGSEGV && si->si_code == SI_KERNEL && sp >= lo &&
           sp - lo < signal_frame_room;
}

static void on_fault(int sig, siginfo_t *si, void *uctx)
{
    wf_worker *w = wf_worker_self();
    wf_thread *t = w ? w->current : NULL;
    if (t && t->stack.map && (wf_stack_guard_hit(&t->stack, si->si_addr) ||
                              frame_did_not_fit(&t->stack, si, uctx))) {
        report_overflow(t);
        signal(SIGABRT, SIG_DFL);
        abort();
    }
    chain(sig, si, uctx);
}

int wf_overflow_install(void)
{
    struct sigaction sa;
    unsigned long frame = getauxval(AT_MINSIGSTKSZ);

    signal_frame_room = (frame ? frame : FALLBACK_FRAME) + RED_ZONE;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGSEGV, &sa, &old_segv) != 0 || sigaction(SIGBUS, &sa, &old_bus) != 0)
        return -errno;
    return 0;
}

static struct sigaction *saved_action(int sig)
{
    struct sigaction cur;
    if (sig != SIGSEGV && sig != SIGBUS)
        return NULL;
    if (sigaction(sig, NULL, &cur) != 0 || !(cur.sa_flags & SA_SIGINFO) ||
        cur.sa_sigaction != on_fault)
        return NULL;
    return sig == SIGSEGV ? &old_segv : &old_bus;
}

int wf_overflow_adopt(int sig, wf_sigaction_fn fn)
{
    struct sigaction *old = saved_action(sig);
    if (!old || (old->sa_flags & SA_SIGINFO) || old->sa_handler != SIG_DFL)
        return 0;
    memset(old, 0, sizeof *old);
    old->sa_sigaction = fn;
    old->sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&old->sa_mask);
    return 1;
}

void wf_overflow_unadopt(int sig, wf_sigaction_fn fn)
{
    struct sigaction *old = saved_action(sig);
    if (!old || !(old->sa_flags & SA_SIGINFO) || old->sa_sigaction != fn)
        return;
    memset(old, 0, sizeof *old);
    old->sa_handler = SIG_DFL;
    sigemptyset(&old->sa_mask);
}

void wf_overflow_uninstall(void)
{
    sigaction(SIGSEGV, &old_segv, NULL);
    sigaction(SIGBUS, &old_bus, NULL);
}

int wf_altstack_setup(wf_worker *w)
{
    w->altstack = malloc(ALTSTACK_SIZE);
    if (!w->altstack)
        return WEFT_ENOMEM;
    stack_t ss = { .ss_sp = w->altstack, .ss_size = ALTSTACK_SIZE, .ss_flags = 0 };
    if (sigaltstack(&ss, &w->old_altstack) != 0) {
        free(w->altstack);
        w->altstack = NULL;
        return -errno;
    }
    return 0;
}

void wf_altstack_teardown(wf_worker *w)
{
    if (!w->altstack)
        return;
    stack_t off = { .ss_sp = NULL, .ss_size = 0, .ss_flags = SS_DISABLE };
    sigaltstack(w->old_altstack.ss_sp ? &w->old_altstack : &off, NULL);
    free(w->altstack);
    w->altstack = NULL;
}
