/* mpirun's stdio forwarding: every rank's stdout and stderr, in whole
 * lines, to mpirun's stdout and stderr; mpirun's stdin to one rank.
 *
 * Each rank writes to its own pipes, so nothing from two ranks can mix
 * inside a pipe; mpirun reads them (non-blocking, at most 64 KiB per read
 * so no rank starves the others) and writes out only complete lines, each
 * in full before the next, so a line of one rank never contains bytes of
 * another's, however long the lines and however the rank split its
 * writes. The incomplete tail waits in the stream's buffer for its newline.
 * Limits: a line longer than WL_LINE_MAX (1 MiB) is written in pieces of
 * that size, so mpirun's memory stays bounded; until its newline is out,
 * that stream owns mpirun's stream (owner[]): other ranks' output for it
 * waits in their buffers (a pipe that closes meanwhile keeps its buffer,
 * held_eof), so even such a line arrives whole (under --tag-output each
 * piece is a tagged line of its own, still consecutive). The others' pipes
 * are still read, up to WL_HOLD_MAX buffered bytes each: a rank finishing
 * its long line may be waiting for a message from a rank that is writing
 * output, and that one must not block on a full pipe meanwhile; past
 * WL_HOLD_MAX it does (memory stays bounded; a program in that situation
 * would also block on a terminal). A last line without a newline is written when
 * the pipe closes (with a newline added under --tag-output, so the next
 * tag starts a line). Without --tag-output all complete lines of one read go out in one
 * write(); with it, up to LINES_PER_WRITE (tag, line) pairs per writev().
 *
 * --tag-output prefixes each line with "[1,R]<stdout>:" or "[1,R]<stderr>:"
 * (R the rank), Open MPI's format ("1" stands for the job).
 * --timestamp-output puts "[YYYY-MM-DD HH:MM:SS.mmm] " (local time, when
 * mpirun read the line) before that: milliseconds, since lines of one
 * second are what a user comparing ranks looks at.
 *
 * --output-filename DIR copies each stream, byte for byte as the rank
 * wrote it (no tags), to DIR/1/rank.R/stdout or stderr, Open MPI 4's
 * layout; output still goes to mpirun's stdout and stderr too (Open MPI's
 * default; its ":nocopy" is not offered). mpirun writes the files, so a
 * relative DIR is mpirun's, and remote ranks' files land on mpirun's host.
 *
 * stdin: mpirun reads its stdin only when the previous chunk was taken by
 * the rank's pipe (non-blocking write end), so a rank that does not read
 * stdin stops mpirun from reading more, and never blocks mpirun. EOF on
 * mpirun's stdin closes the rank's stdin; a rank that exits or closes its
 * end ends the forwarding (EPIPE is expected: SIGPIPE is ignored).
 *
 * When the last rank has exited, mpirun reads what the pipes still hold and
 * stops: output written later by processes the ranks left running (and
 * that kept the pipes open) is lost, rather than mpirun waiting for them.
 *
 * Writes to mpirun's own stdout/stderr block: if whoever reads mpirun is
 * slow, ranks eventually block on full pipes, as they would writing to a
 * terminal. If such a write fails (the reader went away), further output
 * to that stream is read and dropped.
 *
 * Rejected: a pty per rank (line-buffered ranks, but no end-of-line
 * guarantee across ranks either, and much more state).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "launcher.h"

#define WL_LINE_MAX     (1u << 20)
#define WL_HOLD_MAX     (16u << 20) /* held output per stream, see above */
#define READ_CHUNK      65536u
#define LINES_PER_WRITE 256
#define DRAIN_READS     4096 /* per stream, after every rank exited */

void wl_stream_init(struct wl_stream *s, int fd, int to, int rank)
{
    *s = (struct wl_stream){ .fd = fd, .to = to, .rank = rank, .file = -1 };
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

/* ------------------------------------------------------------ files */

/* mkdir -p: every missing directory of path. 0 or -errno. */
static int mkdirs(const char *path)
{
    char buf[PATH_MAX];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
        return -ENAMETOOLONG;
    for (char *s = buf + 1;; s++) {
        if (*s && *s != '/')
            continue;
        char c = *s;
        *s = '\0';
        if (mkdir(buf, 0777) < 0 && errno != EEXIST)
            return -errno;
        if (!c)
            return 0;
        *s = c;
    }
}

int wl_iofwd_check_dir(const char *outdir)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s/1", outdir);
    int err = mkdirs(dir);
    if (err)
        wl_say("--output-filename '%s': cannot create %s: %s", outdir, dir, strerror(-err));
    return err;
}

static int open_file(struct wl_job *j, const char *dir, const char *name)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0)
        wl_job_fail(j, WL_EXIT_INTERNAL, "--output-filename: cannot create %s: %s", path,
                    strerror(errno));
    return fd;
}

/* Rank R's files: DIR/1/rank.R/stdout and stderr, as Open MPI 4 names
 * them (R left-filled with zeros to the width of the last rank, "1" the
 * job). With --merge-stderr-to-stdout there is no stderr to copy. */
void wl_iofwd_open_files(struct wl_job *j, struct wl_rank *r)
{
    char dir[PATH_MAX];
    int width = snprintf(NULL, 0, "%d", j->n - 1);
    if (!j->o->outdir)
        return;
    snprintf(dir, sizeof dir, "%s/1/rank.%0*d", j->o->outdir, width, r->rank);
    int err = mkdirs(dir);
    if (err) {
        wl_job_fail(j, WL_EXIT_INTERNAL, "--output-filename: cannot create %s: %s", dir,
                    strerror(-err));
        return;
    }
    r->out.file = open_file(j, dir, "stdout");
    if (!j->o->merge_stderr)
        r->err.file = open_file(j, dir, "stderr");
}

/* ------------------------------------------------------------ output */

static void out_writev(struct wl_job *j, int to, struct iovec *v, int n)
{
    while (n > 0 && !j->out_broken[to]) {
        ssize_t w = writev(to, v, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0) {
            j->out_broken[to] = 1;
            return;
        }
        for (; n > 0 && (size_t)w >= v->iov_len; v++, n--)
            w -= (ssize_t)v->iov_len;
        if (n > 0) {
            v->iov_base = (char *)v->iov_base + w;
            v->iov_len -= (size_t)w;
        }
    }
}

static int prefixed(const struct wl_job *j)
{
    return j->o->tag_output || j->o->timestamp;
}

/* What goes before each line: --timestamp-output's local time of now,
 * then --tag-output's tag. Its length. */
static size_t line_prefix(const struct wl_job *j, const struct wl_stream *s, char *buf,
                          size_t len)
{
    size_t n = 0;
    if (j->o->timestamp) {
        struct timespec ts;
        struct tm tm;
        clock_gettime(CLOCK_REALTIME, &ts);
        localtime_r(&ts.tv_sec, &tm);
        n = strftime(buf, len, "[%Y-%m-%d %H:%M:%S", &tm);
        n += (size_t)snprintf(buf + n, len - n, ".%03ld] ", ts.tv_nsec / 1000000);
    }
    if (j->o->tag_output)
        n += (size_t)snprintf(buf + n, len - n, "[1,%d]<%s>:", s->rank,
                              s->to == 1 ? "stdout" : "stderr");
    return n;
}

/* p[0..len) holds whole lines (each ends in '\n'). */
static void emit_lines(struct wl_job *j, const struct wl_stream *s, char *p, size_t len)
{
    struct iovec v[2 * LINES_PER_WRITE];
    char pre[128];
    int n = 0;
    size_t pl = line_prefix(j, s, pre, sizeof pre);
    if (pl == 0) {
        v[0] = (struct iovec){ p, len };
        out_writev(j, s->to, v, 1);
        return;
    }
    while (len > 0) {
        size_t l = (size_t)((char *)memchr(p, '\n', len) - p) + 1;
        v[n++] = (struct iovec){ pre, pl };
        v[n++] = (struct iovec){ p, l };
        p += l;
        len -= l;
        if (n == 2 * LINES_PER_WRITE || len == 0) {
            out_writev(j, s->to, v, n);
            n = 0;
        }
    }
}

/* Write the buffered tail as a line of its own (EOF, or an overlong line). */
static void emit_tail(struct wl_job *j, struct wl_stream *s)
{
    if (s->len == 0)
        return;
    if (prefixed(j)) /* the tail has no newline; emit_lines needs one */
        s->buf[s->len++] = '\n'; /* the buffer always has a spare byte */
    emit_lines(j, s, s->buf, s->len);
    s->len = 0;
}

static void release_owner(struct wl_job *j, struct wl_stream *s);
static void stream_free(struct wl_job *j, struct wl_stream *s);

/* Write the complete lines of the buffer, keep the tail (unless another
 * stream is half-way through an overlong line: then keep everything). */
static void emit_complete(struct wl_job *j, struct wl_stream *s)
{
    if (j->owner[s->to] && j->owner[s->to] != s)
        return;
    char *last = memrchr(s->buf, '\n', s->len);
    if (!last) {
        if (s->len >= WL_LINE_MAX) {
            emit_tail(j, s);
            j->owner[s->to] = s; /* the rest of this line comes next */
        }
        return;
    }
    size_t done = (size_t)(last - s->buf) + 1;
    emit_lines(j, s, s->buf, done);
    memmove(s->buf, s->buf + done, s->len - done);
    s->len -= done;
    release_owner(j, s);
}

/* s finished its overlong line (or closed): the others may write again. */
static void release_owner(struct wl_job *j, struct wl_stream *s)
{
    if (j->owner[s->to] != s)
        return;
    j->owner[s->to] = NULL;
    for (int i = 0; i < j->n && !j->owner[s->to]; i++) {
        struct wl_stream *o = s->to == 1 ? &j->ranks[i].out : &j->ranks[i].err;
        if (o != s && o->len > 0)
            emit_complete(j, o);
        if (o != s && o->held_eof && (!j->owner[s->to] || j->owner[s->to] == o))
            stream_free(j, o); /* its pipe closed while it waited */
    }
}

/* ------------------------------------------------------------ input pipes */

/* Write what is left and free the buffer. */
static void stream_free(struct wl_job *j, struct wl_stream *s)
{
    emit_tail(j, s);
    s->held_eof = 0;
    release_owner(j, s);
    free(s->buf);
    s->buf = NULL;
    s->cap = 0;
}

static void stream_close(struct wl_job *j, struct wl_stream *s)
{
    close(s->fd);
    s->fd = -1;
    if (s->file >= 0)
        close(s->file);
    s->file = -1;
    if (j->owner[s->to] && j->owner[s->to] != s)
        s->held_eof = 1; /* written when the owner lets go */
    else
        stream_free(j, s);
}

/* --output-filename: the bytes as the rank wrote them. A failed write
 * (disk full) ends the copy with one message; the terminal keeps it all. */
static void copy_to_file(struct wl_stream *s, const char *p, size_t len)
{
    while (s->file >= 0 && len > 0) {
        ssize_t w = write(s->file, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0) {
            wl_say("rank %d: --output-filename: %s; no more copies to the file", s->rank,
                   strerror(errno));
            close(s->file);
            s->file = -1;
            return;
        }
        p += w;
        len -= (size_t)w;
    }
}

/* One read: 1 if it got data, 0 if nothing there now, -1 at EOF. */
static int pump(struct wl_job *j, struct wl_stream *s)
{
    if (s->cap - s->len < READ_CHUNK + 1) {
        size_t cap = s->len + READ_CHUNK + 1;
        char *buf = realloc(s->buf, cap);
        if (!buf)
            return 0; /* try again later; the rank waits meanwhile */
        s->buf = buf;
        s->cap = cap;
    }
    ssize_t n = read(s->fd, s->buf + s->len, READ_CHUNK);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return 0;
    if (n <= 0) {
        stream_close(j, s);
        return -1;
    }
    copy_to_file(s, s->buf + s->len, (size_t)n);
    s->len += (size_t)n;
    emit_complete(j, s);
    return 1;
}

static void on_stream(struct wl_job *j, void *arg, short revents)
{
    (void)revents;
    pump(j, arg);
}

static void drain_stream(struct wl_job *j, struct wl_stream *s)
{
    struct wl_stream *o;
    while ((o = j->owner[s->to]) != NULL && o != s) /* its line ends first */
        drain_stream(j, o);
    for (int reads = 0; s->fd >= 0 && reads < DRAIN_READS; reads++)
        if (pump(j, s) == 0)
            break;
    if (s->fd >= 0)
        stream_close(j, s);
}

void wl_iofwd_drain(struct wl_job *j)
{
    for (int i = 0; i < j->n; i++) {
        drain_stream(j, &j->ranks[i].out);
        drain_stream(j, &j->ranks[i].err);
    }
    for (int i = 0; i < j->n; i++) { /* no owner is left now */
        if (j->ranks[i].out.held_eof)
            stream_free(j, &j->ranks[i].out);
        if (j->ranks[i].err.held_eof)
            stream_free(j, &j->ranks[i].err);
    }
    if (j->in.to >= 0)
        close(j->in.to);
    j->in.to = -1;
}

/* ------------------------------------------------------------ stdin */

static void stdin_stop(struct wl_job *j)
{
    if (j->in.to >= 0)
        close(j->in.to);
    j->in.to = -1;
    j->in.from = -1; /* stop reading; fd 0 itself stays open */
    j->in.len = j->in.off = 0;
}

static void on_stdin_write(struct wl_job *j, void *arg, short revents)
{
    (void)arg;
    (void)revents;
    struct wl_stdin *in = &j->in;
    if (in->to < 0)
        return;
    ssize_t w = write(in->to, in->buf + in->off, in->len - in->off);
    if (w < 0 && errno != EAGAIN && errno != EINTR) {
        stdin_stop(j);
        return;
    }
    in->off += w > 0 ? (size_t)w : 0;
    if (in->off < in->len)
        return;
    in->len = in->off = 0;
    if (in->from < 0)
        stdin_stop(j); /* EOF was seen: the rank gets it now */
}

static void on_stdin_read(struct wl_job *j, void *arg, short revents)
{
    (void)arg;
    (void)revents;
    struct wl_stdin *in = &j->in;
    if (in->from < 0 || in->len > 0)
        return;
    ssize_t n = read(in->from, in->buf, sizeof in->buf);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (n <= 0) {
        stdin_stop(j);
        return;
    }
    in->len = (size_t)n;
    in->off = 0;
    on_stdin_write(j, NULL, 0);
}

void wl_iofwd_rank_gone(struct wl_job *j, struct wl_rank *r)
{
    if (r->rank == j->o->stdin_rank)
        stdin_stop(j);
}

void wl_iofwd_poll(struct wl_job *j, struct wl_poll *p)
{
    for (int i = 0; i < j->n; i++) {
        struct wl_rank *r = &j->ranks[i];
        if (r->out.fd >= 0 && r->out.len < WL_HOLD_MAX)
            wl_poll_add(p, r->out.fd, POLLIN, on_stream, &r->out);
        if (r->err.fd >= 0 && r->err.len < WL_HOLD_MAX)
            wl_poll_add(p, r->err.fd, POLLIN, on_stream, &r->err);
    }
    if (j->in.to >= 0 && j->in.len > 0)
        wl_poll_add(p, j->in.to, POLLOUT, on_stdin_write, NULL);
    else if (j->in.to >= 0 && j->in.from >= 0)
        wl_poll_add(p, j->in.from, POLLIN, on_stdin_read, NULL);
}
