/* Loopback TCP and server child processes for the I/O benchmarks
 * (bench/reactivity, bench/aggregation).
 *
 * Shape of a case: the parent (the measuring client, plain C, blocking
 * sockets, no Weft) opens a listening socket on 127.0.0.1, starts the
 * server as a fresh child process (fork + exec of the benchmark itself with
 * `--case <spec>`, the listening fd inherited and named in the spec),
 * connects, measures, closes its sockets, and reaps the child within a
 * bounded time (SIGKILL after it). A fresh process per case keeps the
 * runtime state (threads, strategy, quantum) of one case out of the next.
 *
 * No child outlives the parent: each child asks the kernel for SIGKILL when
 * its parent dies (PR_SET_PDEATHSIG), and the parent kills the children it
 * still has on exit and on SIGINT/SIGTERM/SIGHUP.
 */
#ifndef BENCH_LOOPBACK_H
#define BENCH_LOOPBACK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* ------------------------------------------------------------- sockets */

/* A listening TCP socket on 127.0.0.1, any free port, inheritable across
 * exec. Returns the fd (port in *port) or -1 (message printed). */
int lb_listen(int backlog, int *port);

/* A blocking connection to 127.0.0.1:port with TCP_NODELAY, or -1. */
int lb_connect(int port);

/* accept() on `listen_fd` (blocking) with TCP_NODELAY on the result, or -1. */
int lb_accept(int listen_fd);

/* SO_RCVTIMEO on a blocking socket: a recv waiting longer fails with
 * EAGAIN. Returns 0 or -1. */
int lb_set_recv_timeout(int fd, int64_t timeout_ns);

/* Send / receive exactly len bytes on a blocking socket (MSG_NOSIGNAL).
 * Return 0; 1 at end of stream (receive only); -1 on error or timeout
 * (errno set, EAGAIN for a timeout). */
int lb_send_all(int fd, const void *buf, size_t len);
int lb_recv_all(int fd, void *buf, size_t len);

/* ------------------------------------------------------ child processes */

/* Run this program again as `prog --case spec`, in a child that dies with
 * the parent. If env_key is not NULL, it is set to env_value in the child
 * only if the environment does not set it already. If stdout_fd >= 0 it
 * becomes the child's stdout. Returns the pid or -1. */
pid_t lb_spawn_self(const char *spec, const char *env_key,
                    const char *env_value, int stdout_fd);

/* Wait up to timeout_ns for `pid` to exit, then SIGKILL it. Returns 0 if it
 * exited with status 0 in time; -1 otherwise (message printed, naming
 * `what`). what == NULL: however it ended is fine (returns 0; use with a
 * zero timeout to kill a server that is known to be stuck). */
int lb_reap(pid_t pid, int64_t timeout_ns, const char *what);

/* --------------------------------------------------------------- misc */

/* Raise the soft RLIMIT_NOFILE towards `want` (at most the hard limit).
 * Returns the soft limit now in force. */
long lb_raise_nofile(long want);

/* Sleep ns nanoseconds (nanosleep, restarted on EINTR). */
void lb_sleep_ns(int64_t ns);

/* Make nanosleep precise in this process (timer slack 1 ns). */
void lb_precise_sleeps(void);

/* xorshift64: a fast reproducible generator; *state must not be 0. */
uint64_t lb_rand(uint64_t *state);

/* Uniform integer in [0, bound). */
uint64_t lb_rand_below(uint64_t *state, uint64_t bound);

#endif /* BENCH_LOOPBACK_H */
