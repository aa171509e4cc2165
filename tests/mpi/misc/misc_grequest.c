/* Generalized requests (MPI_Grequest_start / MPI_Grequest_complete):
 *   - completed by another thread while the owner blocks in MPI_Wait, or
 *     polls with MPI_Test, or waits in MPI_Waitany among others (one of
 *     them a real receive), MPI_Waitsome, MPI_Waitall; or completed by the
 *     main thread while a pthread waits;
 *   - query_fn fills the status (elements, tag, cancelled) and runs before
 *     free_fn, once per completion call; MPI_Request_get_status runs only
 *     query_fn and keeps the request;
 *   - MPI_Request_free before completion: free_fn runs in
 *     MPI_Grequest_complete; cancel_fn is told whether it was complete;
 *   - an error code returned by query_fn comes back from MPI_Wait and in
 *     MPI_Waitall's statuses (MPI_ERRORS_RETURN).
 * Built against Weft's mpi.h, a Weft user-level thread also completes one.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* nanosleep */
#endif
#include <pthread.h>
#include <time.h>

#include "mpi_test_util.h"

#ifdef WEFT_MPI
#include <weft.h>
#endif

typedef struct greq {
    MPI_Request req;
    int nelems, tag, cancel;   /* what query_fn reports */
    int query_err, free_err;   /* what the callbacks return */
    int queried, freed;        /* calls so far */
    int query_seq, free_seq;
    int cancels, cancel_complete;
    int delay_ms;              /* completer: wait this long first */
} greq;

/* Callbacks run in MPI calls of the thread that completes. An atomic, not
 * a pthread mutex, which a preempted user-level thread could hold while
 * another one on its worker waits for it in the kernel. */
static int seq;

static int next_seq(void)
{
    return __atomic_add_fetch(&seq, 1, __ATOMIC_SEQ_CST);
}

static int query_fn(void *extra, MPI_Status *status)
{
    greq *g = extra;

    g->queried++;
    g->query_seq = next_seq();
    MPI_Status_set_elements(status, MPI_INT, g->nelems);
    MPI_Status_set_cancelled(status, g->cancel);
    status->MPI_SOURCE = MPI_UNDEFINED;
    status->MPI_TAG = g->tag;
    return g->query_err;
}

static int free_fn(void *extra)
{
    greq *g = extra;

    g->freed++;
    g->free_seq = next_seq();
    return g->free_err;
}

static int cancel_fn(void *extra, int complete)
{
    greq *g = extra;

    g->cancels++;
    g->cancel_complete = complete;
    return MPI_SUCCESS;
}

static void start(greq *g, int nelems, int tag)
{
    memset(g, 0, sizeof *g);
    g->nelems = nelems;
    g->tag = tag;
    MPI_OK(MPI_Grequest_start(query_fn, free_fn, cancel_fn, g, &g->req));
    CHECK(g->req != MPI_REQUEST_NULL, "MPI_Grequest_start gave MPI_REQUEST_NULL");
}

static void sleep_ms(int ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };
    nanosleep(&ts, NULL);
}

static void *completer(void *arg)
{
    greq *g = arg;

    sleep_ms(g->delay_ms);
    MPI_OK(MPI_Grequest_complete(g->req));
    return NULL;
}

static pthread_t complete_later(greq *g, int ms)
{
    pthread_t t;

    g->delay_ms = ms;
    CHECK(pthread_create(&t, NULL, completer, g) == 0, "pthread_create");
    return t;
}

static void check_finished(const greq *g, const MPI_Status *st)
{
    int n, flag;

    CHECK(g->queried == 1 && g->freed == 1, "query %d free %d", g->queried, g->freed);
    CHECK(g->query_seq < g->free_seq, "free_fn ran before query_fn");
    MPI_OK(MPI_Get_count(st, MPI_INT, &n));
    CHECK(n == g->nelems && st->MPI_TAG == g->tag, "count %d tag %d", n, st->MPI_TAG);
    MPI_OK(MPI_Test_cancelled(st, &flag));
    CHECK(flag == g->cancel, "cancelled %d", flag);
}

/* ------------------------------------------------------------ cases */

static void wait_for_other_thread(void)
{
    greq g;
    MPI_Status st;

    start(&g, 12, 3);
    pthread_t t = complete_later(&g, 30);
    MPI_OK(MPI_Wait(&g.req, &st));
    CHECK(g.req == MPI_REQUEST_NULL, "MPI_Wait left the handle");
    check_finished(&g, &st);
    pthread_join(t, NULL);
}

static void test_until_done(void)
{
    greq g;
    MPI_Status st;
    int flag = 0;

    start(&g, 5, 4);
    pthread_t t = complete_later(&g, 20);
    while (!flag) {
        MPI_OK(MPI_Test(&g.req, &flag, &st));
        CHECK(flag || (g.queried == 0 && g.freed == 0), "callbacks before completion");
    }
    check_finished(&g, &st);
    pthread_join(t, NULL);
}

/* Waitany among a receive that is not satisfied yet and two grequests. */
static void waitany_mixed(void)
{
    greq a, b;
    MPI_Request r[3];
    MPI_Status st;
    int idx, in = 0, out = 99;

    start(&a, 1, 10);
    start(&b, 2, 11);
    MPI_OK(MPI_Irecv(&in, 1, MPI_INT, 0, 55, MPI_COMM_SELF, &r[0]));
    r[1] = a.req;
    r[2] = b.req;
    pthread_t t = complete_later(&b, 20);
    MPI_OK(MPI_Waitany(3, r, &idx, &st));
    CHECK(idx == 2 && r[2] == MPI_REQUEST_NULL, "Waitany gave %d", idx);
    check_finished(&b, &st);
    pthread_join(t, NULL);
    MPI_OK(MPI_Send(&out, 1, MPI_INT, 0, 55, MPI_COMM_SELF));
    MPI_OK(MPI_Waitany(3, r, &idx, &st));
    CHECK(idx == 0 && in == 99, "Waitany gave %d (in %d)", idx, in);
    MPI_OK(MPI_Grequest_complete(a.req));
    MPI_OK(MPI_Waitany(3, r, &idx, &st));
    CHECK(idx == 1, "Waitany gave %d", idx);
    check_finished(&a, &st);
    MPI_OK(MPI_Waitany(3, r, &idx, &st));
    CHECK(idx == MPI_UNDEFINED, "Waitany on null handles gave %d", idx);
}

static void waitsome_and_waitall(void)
{
    greq g[3];
    MPI_Request r[3];
    MPI_Status st[3];
    int out, idx[3];
    pthread_t t[3];

    for (int i = 0; i < 3; i++) {
        start(&g[i], i, 20 + i);
        r[i] = g[i].req;
    }
    t[1] = complete_later(&g[1], 10);
    MPI_OK(MPI_Waitsome(3, r, &out, idx, st));
    CHECK(out == 1 && idx[0] == 1 && r[1] == MPI_REQUEST_NULL, "Waitsome: %d", out);
    check_finished(&g[1], &st[0]);
    t[0] = complete_later(&g[0], 10);
    t[2] = complete_later(&g[2], 20);
    MPI_OK(MPI_Waitall(3, r, st));
    check_finished(&g[0], &st[0]);
    check_finished(&g[2], &st[2]);
    for (int i = 0; i < 3; i++)
        pthread_join(t[i], NULL);
}

static void get_status_keeps_request(void)
{
    greq g;
    MPI_Status st;
    int flag = -1;

    start(&g, 7, 30);
    MPI_OK(MPI_Request_get_status(g.req, &flag, &st));
    CHECK(!flag && g.queried == 0, "get_status before completion: %d %d", flag, g.queried);
    MPI_OK(MPI_Grequest_complete(g.req));
    MPI_OK(MPI_Request_get_status(g.req, &flag, &st));
    CHECK(flag && g.queried == 1 && g.freed == 0 && g.req != MPI_REQUEST_NULL,
          "get_status after completion: %d %d %d", flag, g.queried, g.freed);
    MPI_OK(MPI_Wait(&g.req, &st));
    CHECK(g.queried == 2 && g.freed == 1, "query %d free %d", g.queried, g.freed);
}

static void free_then_complete(void)
{
    greq g;
    MPI_Request keep;

    start(&g, 1, 40);
    keep = g.req;
    MPI_OK(MPI_Request_free(&g.req));
    CHECK(g.req == MPI_REQUEST_NULL && g.freed == 0, "free_fn ran before completion");
    MPI_OK(MPI_Grequest_complete(keep)); /* the handle is still the program's to complete */
    CHECK(g.freed == 1 && g.queried == 0, "free %d query %d", g.freed, g.queried);
}

static void cancel(void)
{
    greq g;
    MPI_Status st;

    start(&g, 0, 50);
    MPI_OK(MPI_Cancel(&g.req));
    CHECK(g.cancels == 1 && g.cancel_complete == 0, "cancel_fn %d %d", g.cancels,
          g.cancel_complete);
    g.cancel = 1; /* the operation was stopped; query_fn says so */
    MPI_OK(MPI_Grequest_complete(g.req));
    MPI_OK(MPI_Wait(&g.req, &st));
    check_finished(&g, &st);
    start(&g, 0, 51);
    MPI_OK(MPI_Grequest_complete(g.req));
    MPI_OK(MPI_Cancel(&g.req));
    CHECK(g.cancels == 1 && g.cancel_complete != 0, "cancel_fn after completion");
    MPI_OK(MPI_Wait(&g.req, &st));
}

static void callback_errors(void)
{
    greq g[2];
    MPI_Request r[2];
    MPI_Status st[2];
    int rc;

    start(&g[0], 1, 60);
    g[0].query_err = MPI_ERR_OTHER;
    MPI_OK(MPI_Grequest_complete(g[0].req));
    rc = MPI_Wait(&g[0].req, &st[0]);
    CHECK(rc == MPI_ERR_OTHER, "MPI_Wait returned %d", rc);
    CHECK(g[0].freed == 1, "free_fn not called after a failed query");
    start(&g[0], 1, 61);
    start(&g[1], 2, 62);
    g[1].query_err = MPI_ERR_OTHER;
    for (int i = 0; i < 2; i++) {
        r[i] = g[i].req;
        MPI_OK(MPI_Grequest_complete(r[i]));
    }
    rc = MPI_Waitall(2, r, st);
    CHECK(rc == MPI_ERR_IN_STATUS, "MPI_Waitall returned %d", rc);
    CHECK(st[0].MPI_ERROR == MPI_SUCCESS && st[1].MPI_ERROR == MPI_ERR_OTHER,
          "statuses' errors %d %d", st[0].MPI_ERROR, st[1].MPI_ERROR);
}

/* The main thread completes; a pthread waits. */
static void *waiter(void *arg)
{
    greq *g = arg;
    MPI_Status st;

    MPI_OK(MPI_Wait(&g->req, &st));
    check_finished(g, &st);
    return NULL;
}

static void pthread_waits(void)
{
    greq g;
    pthread_t t;

    start(&g, 9, 70);
    MPI_Request keep = g.req;
    CHECK(pthread_create(&t, NULL, waiter, &g) == 0, "pthread_create");
    sleep_ms(30);
    MPI_OK(MPI_Grequest_complete(keep));
    pthread_join(t, NULL);
}

#ifdef WEFT_MPI
static void *ult_completer(void *arg)
{
    greq *g = arg;

    weft_sleep((int64_t)g->delay_ms * 1000000);
    MPI_OK(MPI_Grequest_complete(g->req));
    return NULL;
}

static void ult_completes(void)
{
    weft_thread_t t;
    greq g;
    MPI_Status st;

    start(&g, 4, 80);
    g.delay_ms = 20;
    CHECK(weft_thread_create(&t, NULL, ult_completer, &g) == 0, "weft_thread_create");
    MPI_OK(MPI_Wait(&g.req, &st));
    check_finished(&g, &st);
    CHECK(weft_thread_join(t, NULL) == 0, "weft_thread_join");
}
#endif

int main(int argc, char **argv)
{
    int provided, rank;

    MPI_OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    wait_for_other_thread();
    test_until_done();
    waitany_mixed();
    waitsome_and_waitall();
    get_status_keeps_request();
    free_then_complete();
    cancel();
    callback_errors();
    pthread_waits();
#ifdef WEFT_MPI
    ult_completes();
#endif
    MPI_Finalize();
    if (rank == 0)
        printf("misc_grequest: ok\n");
    return 0;
}
