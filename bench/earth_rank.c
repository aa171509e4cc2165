/* One rank of an earth job: the EARTH runtime's structure written with
 * MPI and threads. Compute threads (the paper's execution modules) take
 * tasks from the rank's queue, run them and queue the subtasks they split
 * off; a communication thread (its receiver module) blocks in MPI_Recv
 * for requests from other ranks and answers them; any thread sends (its
 * sender module is MPI_THREAD_MULTIPLE). Under Weft all of them are
 * user-level threads; in the Open MPI build, pthreads.
 *
 * Load balancing: work stealing between ranks. A rank with an empty
 * queue and no task running is passive; it asks a random other rank for
 * work (STEAL) and keeps at most one request out. The victim answers
 * with the oldest half of its queue (WORK, at most SHIP_MAX tasks) or
 * NONE; after a NONE a passive rank asks again, backing off once it has
 * asked as many times as there are other ranks, so idle ranks do not
 * flood busy ones. Inside a rank the threads share the one queue.
 *
 * Termination: Safra's algorithm (Dijkstra's token ring with message
 * counts). WORK messages are the only ones that make a rank active, so
 * they are the counted ("basic") messages: each rank counts WORK sent
 * minus received and turns black when it receives one. Rank 0, when
 * passive, sends a white token with count 0 around the ring 0 -> 1 ->
 * ... -> 0; a rank forwards it only while passive, adding its count and
 * its colour, and turns white. The job is over when the token comes back
 * white to a white, passive rank 0 with a total of zero: then no rank is
 * active and no WORK is in flight. Otherwise rank 0 starts another round.
 *
 * Ending cleanly: rank 0 sends DONE to every rank. A rank that has
 * received DONE and has no steal request out sends FIN to every other
 * rank; its communication thread stops once it also has FIN from all of
 * them. Messages between two ranks are not overtaken, and a rank sends
 * nothing after its FIN, so by then every message sent to it has arrived
 * and nothing is left for the next run to match.
 *
 * Invariants: the rank's lock guards every field of rank_state but the
 * immutable ones (comm, rank, size) and the communication thread's FIN
 * count. Decisions are taken under the lock and their messages sent after
 * it is released (actions), so no thread holds the lock inside MPI.
 */
#include "earth_rank.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "earth_pool.h"
#include "earth_thread.h"

#define SHIP_MAX 128       /* tasks per WORK message */
#define BACKOFF_NS 20000   /* per failed steal round, up to BACKOFF_MAX */
#define BACKOFF_MAX 10
#define MAX_THREADS 256

enum { TAG_STEAL = 7101, TAG_WORK, TAG_NONE, TAG_TOKEN, TAG_DONE, TAG_FIN };

typedef struct token {
    int64_t count; /* WORK sent minus received, summed along the ring */
    int64_t black; /* some rank received WORK since the token passed */
} token;

typedef struct rank_state {
    MPI_Comm comm;
    int rank, size;
    lock_t lock;
    cond_t work;       /* signalled when tasks are queued or the job ends */
    earth_pool pool;
    int busy;          /* compute threads running a task */
    int done;          /* the job is over (DONE received or decided) */
    int steal_out;     /* a steal request awaits its answer */
    int fails;         /* steal requests answered NONE in a row */
    int fin_sent;
    int fins;          /* FIN received (communication thread only) */
    uint64_t rng, sum;
    int64_t count;     /* Safra: WORK sent minus received */
    int black;         /* Safra: WORK received since the token passed */
    int have_token, probing;
    token tok;
    earth_stats st;
} rank_state;

/* Messages to send once the lock is released. */
typedef struct actions {
    int steal_to, token_to; /* -1: none */
    int done, fin;          /* send DONE / FIN to every other rank */
    token tok;
} actions;

static const actions no_actions = {.steal_to = -1, .token_to = -1};

/* ------------------------------------------------------------ sending */

static void send_ctl(rank_state *rs, int to, int tag)
{
    MPI_Send(NULL, 0, MPI_BYTE, to, tag, rs->comm);
}

static void send_to_others(rank_state *rs, int tag)
{
    for (int r = 0; r < rs->size; r++)
        if (r != rs->rank)
            send_ctl(rs, r, tag);
}

/* DONE goes out before FIN: a rank must learn of the end first. */
static void perform(rank_state *rs, const actions *a)
{
    if (a->token_to >= 0)
        MPI_Send(&a->tok, sizeof a->tok, MPI_BYTE, a->token_to, TAG_TOKEN,
                 rs->comm);
    if (a->done)
        send_to_others(rs, TAG_DONE);
    if (a->steal_to >= 0)
        send_ctl(rs, a->steal_to, TAG_STEAL);
    if (a->fin)
        send_to_others(rs, TAG_FIN);
}

/* ----------------------------------------------------------- deciding */

static int is_passive(const rank_state *rs)
{
    return !rs->done && rs->busy == 0 && earth_pool_size(&rs->pool) == 0;
}

static int random_victim(rank_state *rs)
{
    rs->rng ^= rs->rng << 13;
    rs->rng ^= rs->rng >> 7;
    rs->rng ^= rs->rng << 17;
    int v = (int)(rs->rng % (uint64_t)(rs->size - 1));
    return v >= rs->rank ? v + 1 : v;
}

static void finish(rank_state *rs, actions *a)
{
    rs->done = 1;
    cond_broadcast(&rs->work);
    a->done = rs->rank == 0 && rs->size > 1;
}

/* FIN once the job is over and no steal request is out. */
static void plan_fin(rank_state *rs, actions *a)
{
    if (rs->done && !rs->steal_out && !rs->fin_sent && rs->size > 1) {
        rs->fin_sent = 1;
        a->fin = 1;
    }
}

/* Rank 0: judge the returned token, or send a new one. */
static void plan_probe(rank_state *rs, actions *a)
{
    if (rs->have_token) {
        rs->have_token = rs->probing = 0;
        if (!rs->tok.black && !rs->black && rs->tok.count + rs->count == 0) {
            finish(rs, a);
            return;
        }
    }
    if (!rs->probing) {
        rs->probing = 1;
        rs->black = 0;
        a->tok = (token){0, 0};
        a->token_to = 1;
    }
}

/* Other ranks: pass the token on with this rank's count and colour. */
static void plan_forward(rank_state *rs, actions *a)
{
    if (!rs->have_token)
        return;
    a->tok.count = rs->tok.count + rs->count;
    a->tok.black = rs->tok.black || rs->black;
    a->token_to = (rs->rank + 1) % rs->size;
    rs->have_token = rs->black = 0;
}

/* What a passive rank does: the token's business, then a steal. */
static void plan_passive(rank_state *rs, actions *a)
{
    if (rs->size == 1) {
        finish(rs, a);
        return;
    }
    if (rs->rank == 0)
        plan_probe(rs, a);
    else
        plan_forward(rs, a);
    if (!rs->done && !rs->steal_out) {
        rs->steal_out = 1;
        rs->st.steals_sent++;
        a->steal_to = random_victim(rs);
    }
    plan_fin(rs, a);
}

/* ---------------------------------------------------- compute threads */

static void push_task(void *ctx, const earth_task *t)
{
    rank_state *rs = ctx;
    lock_take(&rs->lock);
    if (earth_pool_push(&rs->pool, t) != 0) {
        fprintf(stderr, "earth: out of memory for the task queue\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    cond_signal(&rs->work);
    lock_give(&rs->lock);
}

/* Run one task without the lock; a ULT then gives way at this task
 * boundary, so the communication thread answers a thief at once even
 * with one worker. */
static uint64_t run_task(rank_state *rs, earth_task t)
{
    lock_give(&rs->lock);
    uint64_t v = earth_task_run(t, push_task, rs);
#ifdef WEFT_MPI
    thread_yield();
#endif
    lock_take(&rs->lock);
    return v;
}

static void *compute_main(void *arg)
{
    rank_state *rs = arg;
    uint64_t sum = 0, tasks = 0;
    earth_task t;
    lock_take(&rs->lock);
    while (!rs->done) {
        if (earth_pool_pop(&rs->pool, &t)) {
            rs->busy++;
            sum += run_task(rs, t);
            rs->busy--;
            tasks++;
        } else if (is_passive(rs)) {
            actions a = no_actions;
            plan_passive(rs, &a);
            lock_give(&rs->lock);
            perform(rs, &a);
            lock_take(&rs->lock);
            if (!rs->done && earth_pool_size(&rs->pool) == 0)
                cond_wait(&rs->work, &rs->lock);
        } else {
            cond_wait(&rs->work, &rs->lock);
        }
    }
    rs->sum += sum;
    rs->st.tasks += tasks;
    lock_give(&rs->lock);
    return NULL;
}

/* ------------------------------------------------ communication thread */

static void on_steal(rank_state *rs, int thief, earth_task *buf)
{
    lock_take(&rs->lock);
    int n = rs->done ? 0 : earth_pool_take_half(&rs->pool, buf, SHIP_MAX);
    if (n > 0) {
        rs->count++;
        rs->st.tasks_shipped += (uint64_t)n;
    }
    lock_give(&rs->lock);
    MPI_Send(buf, n * (int)sizeof *buf, MPI_BYTE, thief,
             n > 0 ? TAG_WORK : TAG_NONE, rs->comm);
}

static void on_work(rank_state *rs, const earth_task *tasks, int n)
{
    lock_take(&rs->lock);
    for (int i = 0; i < n; i++)
        if (earth_pool_push(&rs->pool, &tasks[i]) != 0)
            MPI_Abort(MPI_COMM_WORLD, 1);
    rs->count--;
    rs->black = 1;
    rs->steal_out = rs->fails = 0;
    rs->st.steals_won++;
    cond_broadcast(&rs->work);
    lock_give(&rs->lock);
}

/* Ask again, after a pause once every other rank has said no. */
static void on_none(rank_state *rs)
{
    actions a = no_actions;
    lock_take(&rs->lock);
    rs->steal_out = 0;
    int fails = ++rs->fails;
    lock_give(&rs->lock);
    if (fails >= rs->size - 1) {
        int k = fails < BACKOFF_MAX ? fails : BACKOFF_MAX;
        thread_sleep_ns((int64_t)k * BACKOFF_NS);
    }
    lock_take(&rs->lock);
    if (is_passive(rs))
        plan_passive(rs, &a);
    plan_fin(rs, &a);
    lock_give(&rs->lock);
    perform(rs, &a);
}

static void on_token(rank_state *rs, const token *tok)
{
    actions a = no_actions;
    lock_take(&rs->lock);
    rs->have_token = 1;
    rs->tok = *tok;
    if (is_passive(rs))
        plan_passive(rs, &a);
    lock_give(&rs->lock);
    perform(rs, &a);
}

static void on_done(rank_state *rs)
{
    actions a = no_actions;
    lock_take(&rs->lock);
    finish(rs, &a);
    plan_fin(rs, &a);
    lock_give(&rs->lock);
    perform(rs, &a);
}

static int comm_over(rank_state *rs)
{
    lock_take(&rs->lock);
    int over = rs->done && rs->fin_sent && rs->fins == rs->size - 1;
    lock_give(&rs->lock);
    return over;
}

static void dispatch(rank_state *rs, const MPI_Status *st, earth_task *buf,
                     earth_task *ship)
{
    int bytes;
    MPI_Get_count(st, MPI_BYTE, &bytes);
    switch (st->MPI_TAG) {
    case TAG_STEAL: on_steal(rs, st->MPI_SOURCE, ship); break;
    case TAG_WORK: on_work(rs, buf, bytes / (int)sizeof *buf); break;
    case TAG_NONE: on_none(rs); break;
    case TAG_TOKEN: on_token(rs, (const token *)(void *)buf); break;
    case TAG_DONE: on_done(rs); break;
    case TAG_FIN:
        lock_take(&rs->lock);
        rs->fins++;
        lock_give(&rs->lock);
        break;
    default:
        fprintf(stderr, "earth: unexpected tag %d\n", st->MPI_TAG);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

/* Blocks in MPI_Recv: the receiver costs nothing while nobody writes. */
static void *comm_main(void *arg)
{
    rank_state *rs = arg;
    earth_task *buf = malloc(2 * SHIP_MAX * sizeof *buf);
    MPI_Status st;
    if (!buf)
        MPI_Abort(MPI_COMM_WORLD, 1);
    do {
        MPI_Recv(buf, SHIP_MAX * (int)sizeof *buf, MPI_BYTE, MPI_ANY_SOURCE,
                 MPI_ANY_TAG, rs->comm, &st);
        dispatch(rs, &st, buf, buf + SHIP_MAX);
    } while (!comm_over(rs));
    free(buf);
    return NULL;
}

/* ---------------------------------------------------------------- run */

static void state_init(rank_state *rs, MPI_Comm comm, earth_task root)
{
    memset(rs, 0, sizeof *rs);
    rs->comm = comm;
    MPI_Comm_rank(comm, &rs->rank);
    MPI_Comm_size(comm, &rs->size);
    lock_init(&rs->lock, &rs->work);
    earth_pool_init(&rs->pool);
    rs->rng = 0x9e3779b97f4a7c15ULL * (uint64_t)(rs->rank + 1);
    if (rs->rank == 0 && earth_pool_push(&rs->pool, &root) != 0)
        MPI_Abort(MPI_COMM_WORLD, 1);
}

/* Start the threads; on a failure end the job's share of this rank
 * (done) so that the ones started return, and say so. */
static int start_threads(rank_state *rs, thread_t *t, int n, thread_t *comm)
{
    int started = 0, rc = 0;
    if (rs->size > 1)
        rc = thread_start(comm, comm_main, rs);
    while (rc == 0 && started < n)
        if ((rc = thread_start(&t[started], compute_main, rs)) == 0)
            started++;
    if (rc != 0) {
        fprintf(stderr, "earth: cannot start threads\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return started;
}

int earth_rank_run(MPI_Comm comm, earth_task root, int threads,
                   uint64_t *sum, earth_stats *st)
{
    static thread_t t[MAX_THREADS];
    thread_t comm_thread;
    rank_state rs;
    if (threads < 1 || threads > MAX_THREADS)
        return -1;
    state_init(&rs, comm, root);
    int started = start_threads(&rs, t, threads, &comm_thread);
    for (int i = 0; i < started; i++)
        thread_join(t[i]);
    if (rs.size > 1)
        thread_join(comm_thread);
    *sum = rs.sum;
    *st = rs.st;
    earth_pool_fini(&rs.pool);
    lock_destroy(&rs.lock, &rs.work);
    return 0;
}
