/* Signal-driven detection (strategy (c)): fds put in SIGIO mode with
 * weft_fd_set_sigio() are watched by the kernel's O_ASYNC notification
 * instead of the epoll set, for devices whose driver offers only that
 * (no poll support worth a blocker, or a readiness signal the driver
 * raises itself).
 *
 * Design. weft_fd_set_sigio(fd, 1) sets O_ASYNC, F_SETOWN (this process)
 * and F_SETSIG (WF_IO_SIGIO_SIG, a real-time signal: queued, and the
 * kernel sends it rather than plain SIGIO), takes the fd out of the epoll
 * set (backend_epoll.c keeps its record but never arms it) and adds it to
 * the list here. The handler runs in signal context, so it touches no
 * runtime structure: it bumps a counter and a futex word, and wakes the
 * SIGIO dispatcher, a kernel thread (all signals blocked) that polls every
 * listed fd with waiters (poll(2), no wait) and wakes those that are
 * ready through wf_io_fire: urgently, counted as detected_signal on the
 * fd class. Safe points and the fd blocker never see these fds.
 *
 * No lost wake-up. A readiness that happens between a waiter's immediate
 * test and the linking of its request raises the signal while nobody
 * waits; so linking a request on a SIGIO fd also kicks the dispatcher
 * (wf_io_sigio_kick), whose next round polls it. The dispatcher reads the
 * futex word before a round and sleeps only while it is unchanged, so a
 * kick during a round makes it go round again.
 *
 * Trade-off: one signal and one poll(2) per listed fd per readiness event
 * (~2-5 us), against epoll's one epoll_wait for the whole set; it is a
 * mode for devices that need it, not the default. If the real-time signal
 * queue overflows (RLIMIT_SIGPENDING), the kernel sends plain SIGIO, whose
 * default action ends the process: an application with very bursty SIGIO
 * devices should install a SIGIO handler (or weft_sig_set(SIGIO)).
 *
 * Rejected: waking waiters in the handler (it may interrupt a run-queue
 * update); routing through weft_sig_set (the application may want that
 * signal's wait semantics for itself, and the fd list is the I/O layer's).
 *
 * Locks: list_lock (wf_lock) guards fds/nfds and is held across a round,
 * before each fd record's lock; start_mx orders the dispatcher's start
 * and stop (weft_fini's hook).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/io.h"

#define WF_IO_SIGIO_SIG (SIGRTMIN + 7)

static int list_lock;
static int *fds, nfds, cap;            /* list_lock */
static uint32_t kick_word;             /* atomic */
static int stop_flag;                  /* atomic */
static pthread_mutex_t start_mx = PTHREAD_MUTEX_INITIALIZER;
static pthread_t thread;
static int running, handler_set;       /* start_mx */

/* ------------------------------------------------------------ handler */

static void on_sigio(int sig, siginfo_t *si, void *uctx)
{
    (void)sig;
    (void)si;
    (void)uctx;
    int saved_errno = errno;
    __atomic_fetch_add(&kick_word, 1, __ATOMIC_RELEASE);
    wf_futex_wake(&kick_word, 1);
    errno = saved_errno;
}

void wf_io_sigio_kick(void)
{
    __atomic_fetch_add(&kick_word, 1, __ATOMIC_RELEASE);
    wf_futex_wake(&kick_word, 1);
}

/* --------------------------------------------------------- dispatcher */

static void round_all(void)
{
    wf_lock(&list_lock);
    for (int i = 0; i < nfds; i++)
        wf_io_fd_poll_one(fds[i], WF_DET_SIGNAL);
    wf_unlock(&list_lock);
}

static void *dispatcher_main(void *arg)
{
    (void)arg;
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL); /* the signal goes elsewhere */
    wf_sched_helper_init();
    for (;;) {
        uint32_t seen = __atomic_load_n(&kick_word, __ATOMIC_ACQUIRE);
        if (__atomic_load_n(&stop_flag, __ATOMIC_ACQUIRE))
            break;
        round_all();
        wf_futex_wait_until(&kick_word, seen, -1);
    }
    return NULL;
}

static int install_handler(void)
{
    struct sigaction sa, cur;
    if (sigaction(WF_IO_SIGIO_SIG, NULL, &cur) != 0)
        return -errno;
    if ((cur.sa_flags & SA_SIGINFO) || (cur.sa_handler != SIG_DFL &&
                                        cur.sa_handler != SIG_IGN))
        return WEFT_EBUSY; /* someone else's signal */
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigio;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    return sigaction(WF_IO_SIGIO_SIG, &sa, NULL) == 0 ? 0 : -errno;
}

static int stop_dispatcher(void);

/* Start the handler and the dispatcher once (again after weft_fini). */
static int ensure_started(void)
{
    int err = 0;
    pthread_mutex_lock(&start_mx);
    if (!handler_set) {
        err = install_handler();
        handler_set = err == 0;
        if (!err)
            wf_sched_add_fini_hook(stop_dispatcher);
    }
    if (!err && !running) {
        __atomic_store_n(&stop_flag, 0, __ATOMIC_RELEASE);
        err = pthread_create(&thread, NULL, dispatcher_main, NULL) ? WEFT_EAGAIN : 0;
        running = err == 0;
        if (running)
            pthread_setname_np(thread, "weft-sigio");
    }
    pthread_mutex_unlock(&start_mx);
    return err;
}

/* weft_fini's hook: stop the dispatcher (the handler stays installed). */
static int stop_dispatcher(void)
{
    pthread_mutex_lock(&start_mx);
    if (running) {
        __atomic_store_n(&stop_flag, 1, __ATOMIC_RELEASE);
        wf_io_sigio_kick();
        pthread_join(thread, NULL);
        running = 0;
    }
    pthread_mutex_unlock(&start_mx);
    return 0;
}

/* --------------------------------------------------------------- list */

/* Add fd to the list (list_lock held); 0 or WEFT_ENOMEM. */
static int list_add(int fd)
{
    for (int i = 0; i < nfds; i++)
        if (fds[i] == fd)
            return 0;
    if (nfds == cap) {
        int ncap = cap ? 2 * cap : 16;
        int *n = realloc(fds, (size_t)ncap * sizeof *n);
        if (!n)
            return WEFT_ENOMEM;
        fds = n;
        cap = ncap;
    }
    fds[nfds++] = fd;
    return 0;
}

static void list_remove(int fd)
{
    for (int i = 0; i < nfds; i++)
        if (fds[i] == fd) {
            fds[i] = fds[--nfds];
            return;
        }
}

/* Set or clear the fd's O_ASYNC signalling; 0 or -errno. */
static int set_async(int fd, int on)
{
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0)
        return -errno;
    if (on && (fcntl(fd, F_SETOWN, getpid()) < 0 ||
               fcntl(fd, F_SETSIG, WF_IO_SIGIO_SIG) < 0))
        return -errno;
    fl = on ? fl | O_ASYNC : fl & ~O_ASYNC;
    return fcntl(fd, F_SETFL, fl) < 0 ? -errno : 0;
}

static int sigio_on(int fd)
{
    int err = ensure_started();
    if (err)
        return err;
    wf_lock(&list_lock);
    err = list_add(fd);
    wf_unlock(&list_lock);
    if (err)
        return err;
    err = set_async(fd, 1);
    if (!err)
        err = wf_io_fd_mark_sigio(fd, 1);
    if (err)
        goto fail_mark;
    wf_io_sigio_kick(); /* waiters already queued: poll them once */
    return 0;
fail_mark:
    set_async(fd, 0);
    wf_lock(&list_lock);
    list_remove(fd);
    wf_unlock(&list_lock);
    return err;
}

static int sigio_off(int fd)
{
    wf_lock(&list_lock);
    list_remove(fd);
    wf_unlock(&list_lock);
    int err = wf_io_fd_mark_sigio(fd, 0); /* back to epoll, re-armed */
    int err2 = set_async(fd, 0);
    return err ? err : err2;
}

int weft_fd_set_sigio(int fd, int on)
{
    if (fd < 0)
        return -EBADF;
    if (!wf_io_fd_handle())
        return WEFT_ENOMEM;
    return on ? sigio_on(fd) : sigio_off(fd);
}
