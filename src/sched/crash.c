/* The fatal-signal report: what a process killed by SIGSEGV, SIGBUS,
 * SIGFPE, SIGILL or SIGABRT writes to stderr before it dies.
 *
 *     weft: rank 1 (host n1, pid 4242): killed by SIGSEGV (Segmentation fault)
 *     weft: rank 1: address not mapped at 0x0, in thread ult-3 (id 3) on worker 0
 *     weft: rank 1: backtrace of the faulting thread:
 *     weft: rank 1:   #0 crash_here+0x11 (/path/prog+0x11d1)
 *     weft: rank 1:   #1 worker_fn+0x9 (/path/prog+0x1209)
 *     weft: rank 1: end of report
 *
 * Each frame names its function when the dynamic symbol table has it
 * (functions of shared libraries; a program's own with -rdynamic) and
 * always the object and offset, which `addr2line -f -e <object> <offset>`
 * turns into a function and line (a caller's offset is its return
 * address: the call is the instruction before). Frames of the handler
 * itself are left out: the backtrace starts at the interrupted instruction.
 *
 * Design: the handler runs with SA_ONSTACK, on the alternate stack every
 * worker has (overflow.c): the faulting code usually runs on a ULT's small
 * stack, whose overflow may be the very fault. It blocks every signal
 * (preemption's SIGURG must not switch it away), writes with write(2),
 * formats numbers itself, and reads the current ULT as the preemption
 * handler does. Not async-signal-safe, knowingly: backtrace() and dladdr()
 * take the dynamic loader's lock, so a fault inside the loader would hang
 * the report (the process is dying anyway; the launcher's timeout ends
 * it). backtrace() is called once when the report is armed, so that it
 * does not load libgcc_s in the handler. Then the signal is raised again
 * with the default action: the process dies of it, with its core dump and
 * its exit status (128 + signal in a shell and in mpirun).
 *
 * Whose signal: only signals left at SIG_DFL are taken. A program's or a
 * sanitizer's handler (ASan and UBSan catch SIGSEGV, SIGBUS and SIGFPE)
 * stays in charge, with its own report. SIGSEGV and SIGBUS belong to the
 * overflow handler while the runtime runs; the report becomes the action
 * it passes other faults to, if that was the default (crash.h).
 *
 * Rejected: reporting from a thread woken by the handler (the faulting
 * thread's stack is what we want, and only the faulting thread can unwind
 * it); backtrace_symbols_fd (it cannot prefix its lines with the rank,
 * and gives no offset within the object for a frame it names).
 * Invariants: one thread reports; another that faults meanwhile waits,
 * signals blocked, for the first to kill the process.
 * Locking: start/stop under report_lock; the handler reads the label,
 * written before the handlers are installed.
 */
#include <dlfcn.h>
#include <execinfo.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <weft/thread.h>

#include "sched/crash.h"
#include "sched/sched_internal.h"
#include "sched/uctx.h"

#define MAX_FRAMES 64
#define NFATAL 5

static const int fatal_sig[NFATAL] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
static const char *const fatal_name[NFATAL] = { "SIGSEGV", "SIGBUS", "SIGFPE", "SIGILL",
                                                "SIGABRT" };
static const char *const fatal_desc[NFATAL] = { "Segmentation fault", "Bus error",
                                                "Floating point exception",
                                                "Illegal instruction", "Aborted" };

static char label[96];        /* "rank 1"; "process" if none was given */
static char host[64];
static int reporting;         /* atomic: a thread is reporting */
static pthread_mutex_t report_lock = PTHREAD_MUTEX_INITIALIZER;

/* ------------------------------------------------------ formatting lines */

typedef struct out_line {
    char buf[512];
    size_t len;
} out_line;

static void put(out_line *l, const char *s)
{
    size_t n = strnlen(s, sizeof l->buf);
    if (n > sizeof l->buf - 1 - l->len)
        n = sizeof l->buf - 1 - l->len;
    memcpy(l->buf + l->len, s, n);
    l->len += n;
}

static void put_num(out_line *l, uintmax_t v, unsigned base)
{
    char tmp[32];
    size_t n = sizeof tmp - 1;
    tmp[n] = '\0';
    do {
        tmp[--n] = "0123456789abcdef"[v % base];
        v /= base;
    } while (v);
    if (base == 16)
        put(l, "0x");
    put(l, tmp + n);
}

/* Start a line with the report's prefix. */
static void begin(out_line *l)
{
    l->len = 0;
    put(l, "weft: ");
    put(l, label);
    put(l, ": ");
}

static void flush(out_line *l)
{
    l->buf[l->len++] = '\n';
    size_t off = 0;
    while (off < l->len) {
        ssize_t n = write(STDERR_FILENO, l->buf + off, l->len - off);
        if (n <= 0)
            return;
        off += (size_t)n;
    }
}

/* ------------------------------------------------------------- the report */

static const char *code_text(int sig, int code)
{
    static const struct { int sig, code; const char *text; } codes[] = {
        { SIGSEGV, SEGV_MAPERR, "address not mapped" },
        { SIGSEGV, SEGV_ACCERR, "invalid permissions" },
        { SIGBUS, BUS_ADRALN, "invalid address alignment" },
        { SIGBUS, BUS_ADRERR, "nonexistent physical address" },
        { SIGBUS, BUS_OBJERR, "object-specific hardware error" },
        { SIGFPE, FPE_INTDIV, "integer divide by zero" },
        { SIGFPE, FPE_INTOVF, "integer overflow" },
        { SIGFPE, FPE_FLTDIV, "floating-point divide by zero" },
        { SIGFPE, FPE_FLTINV, "invalid floating-point operation" },
        { SIGILL, ILL_ILLOPC, "illegal opcode" },
        { SIGILL, ILL_ILLOPN, "illegal operand" },
        { SIGILL, ILL_PRVOPC, "privileged opcode" },
    };
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
        if (codes[i].sig == sig && codes[i].code == code)
            return codes[i].text;
    return "fault";
}

static void report_cause(int idx, const siginfo_t *si)
{
    out_line l = { .len = 0 };
    put(&l, "weft: ");
    put(&l, label);
    put(&l, " (host ");
    put(&l, host);
    put(&l, ", pid ");
    put_num(&l, (uintmax_t)getpid(), 10);
    put(&l, "): killed by ");
    put(&l, fatal_name[idx]);
    put(&l, " (");
    put(&l, fatal_desc[idx]);
    put(&l, ")");
    flush(&l);

    begin(&l);
    if (si->si_code == SI_USER || si->si_code == SI_TKILL || si->si_code == SI_QUEUE) {
        put(&l, "sent by pid ");
        put_num(&l, (uintmax_t)si->si_pid, 10);
    } else {
        put(&l, code_text(fatal_sig[idx], si->si_code));
        put(&l, " at ");
        put_num(&l, (uintptr_t)si->si_addr, 16);
    }
    wf_worker *w = wf_worker_self();
    wf_thread *t = w ? w->current : NULL;
    if (t) {
        if (!t->name[0])
            wf_thread_fill_name(t);
        put(&l, ", in thread ");
        put(&l, t->name);
        put(&l, " (id ");
        put_num(&l, t->id, 10);
        put(&l, ") on worker ");
        put_num(&l, (uintmax_t)w->index, 10);
    } else {
        put(&l, ", in a kernel thread that runs no ULT");
    }
    flush(&l);
}

static void report_frame(int n, void *pc)
{
    out_line l;
    Dl_info di;
    begin(&l);
    put(&l, "  #");
    put_num(&l, (uintmax_t)n, 10);
    put(&l, " ");
    if (dladdr(pc, &di) && di.dli_fname) {
        if (di.dli_sname) {
            put(&l, di.dli_sname);
            put(&l, "+");
            put_num(&l, (uintptr_t)pc - (uintptr_t)di.dli_saddr, 16);
            put(&l, " (");
        }
        put(&l, di.dli_fname);
        put(&l, "+");
        put_num(&l, (uintptr_t)pc - (uintptr_t)di.dli_fbase, 16);
        if (di.dli_sname)
            put(&l, ")");
    } else {
        put_num(&l, (uintptr_t)pc, 16);
    }
    flush(&l);
}

static void report_backtrace(const void *uctx)
{
    void *frames[MAX_FRAMES];
    int n = backtrace(frames, MAX_FRAMES), first = 0;
    void *pc = (void *)wf_uctx_pc(uctx);
    for (int i = 0; i < n; i++)
        if (frames[i] == pc) {
            first = i;
            break;
        }
    out_line l;
    begin(&l);
    put(&l, "backtrace of the faulting thread:");
    flush(&l);
    for (int i = first; i < n; i++)
        report_frame(i - first, frames[i]);
    begin(&l);
    put(&l, "end of report");
    flush(&l);
}

static void on_fatal(int sig, siginfo_t *si, void *uctx)
{
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL); /* the handler's return restores it */
    if (__atomic_exchange_n(&reporting, 1, __ATOMIC_ACQ_REL))
        for (;;)
            pause(); /* the reporting thread kills the process */
    int idx = 0;
    while (idx < NFATAL - 1 && fatal_sig[idx] != sig)
        idx++;
    report_cause(idx, si);
    report_backtrace(uctx);
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    raise(sig); /* pending while blocked: fatal once the handler returns */
}

/* ------------------------------------------------------------ start / stop */

/* Take sig if its action is the default one; 1 if taken. */
static int arm(int sig)
{
    struct sigaction cur, sa;
    if (wf_overflow_adopt(sig, on_fatal))
        return 1;
    if (sigaction(sig, NULL, &cur) != 0 || (cur.sa_flags & SA_SIGINFO) ||
        cur.sa_handler != SIG_DFL)
        return 0;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fatal;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    return sigaction(sig, &sa, NULL) == 0;
}

/* Give sig back to the default action, whichever way it reaches the
 * report now: as the overflow handler's saved action or as the installed
 * handler (weft_fini turns the first into the second, weft_init back). */
static void disarm(int sig)
{
    struct sigaction cur, dfl;
    wf_overflow_unadopt(sig, on_fatal);
    if (sigaction(sig, NULL, &cur) == 0 && (cur.sa_flags & SA_SIGINFO) &&
        cur.sa_sigaction == on_fatal) {
        memset(&dfl, 0, sizeof dfl);
        dfl.sa_handler = SIG_DFL;
        sigemptyset(&dfl.sa_mask);
        sigaction(sig, &dfl, NULL);
    }
}

int weft_fatal_report_start(const char *who)
{
    void *warm[1];
    backtrace(warm, 1); /* loads the unwinder now, not in the handler */
    pthread_mutex_lock(&report_lock);
    for (int i = 0; i < NFATAL; i++)
        disarm(fatal_sig[i]);
    size_t n = strnlen(who && *who ? who : "process", sizeof label - 1);
    memcpy(label, who && *who ? who : "process", n);
    label[n] = '\0';
    if (gethostname(host, sizeof host) != 0)
        strcpy(host, "?");
    host[sizeof host - 1] = '\0';
    int count = 0;
    for (int i = 0; i < NFATAL; i++)
        count += arm(fatal_sig[i]);
    pthread_mutex_unlock(&report_lock);
    return count;
}

void weft_fatal_report_stop(void)
{
    pthread_mutex_lock(&report_lock);
    for (int i = 0; i < NFATAL; i++)
        disarm(fatal_sig[i]);
    pthread_mutex_unlock(&report_lock);
}
