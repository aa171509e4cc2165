/* One-sided operation bindings: MPI_Put, MPI_Get, MPI_Accumulate,
 * MPI_Get_accumulate, MPI_Fetch_and_op, MPI_Compare_and_swap and the
 * request-based MPI_Rput, MPI_Rget, MPI_Raccumulate, MPI_Rget_accumulate
 * (contract: binding/win.h).
 *
 * Each checks its arguments in the order window, counts, datatypes,
 * target rank, displacement, op - the first failing check names the
 * class - then hands one wmpi_rma_args to the engine, which checks what
 * needs the target's window (range) and the epoch.
 */
#include "binding/win.h"
#include "engine/objects/datatype.h"
#include "engine/objects/op.h"

static int check_side(int count, MPI_Datatype dt)
{
    if (count < 0)
        return MPI_ERR_COUNT;
    if (!wmpi_datatype_committed(dt))
        return MPI_ERR_TYPE;
    return MPI_SUCCESS;
}

static int check_target(MPI_Win w, int rank, MPI_Aint disp)
{
    if (rank != MPI_PROC_NULL && (rank < 0 || rank >= w->comm->size))
        return MPI_ERR_RANK;
    return disp < 0 ? MPI_ERR_DISP : MPI_SUCCESS;
}

/* A predefined op defined on the target's basic type; MPI_REPLACE, and
 * MPI_NO_OP where `no_op` allows it. */
static int check_op(MPI_Op op, MPI_Datatype tdt, int no_op)
{
    const wmpi_datatype *b;

    if (!wmpi_op_is_live(op) || !wmpi_op_is_predefined(op))
        return MPI_ERR_OP;
    if (op == MPI_REPLACE || (no_op && op == MPI_NO_OP))
        return MPI_SUCCESS;
    b = wmpi_datatype_basic(tdt);
    return !b || wmpi_op_valid(op, b) ? MPI_SUCCESS : MPI_ERR_OP;
}

/* Compare-and-swap takes one element of an integer, logical or byte
 * type (MPI-3.1 11.3.4). */
static int cas_type(MPI_Datatype dt)
{
    switch (dt->tclass) {
    case WMPI_TC_INT: case WMPI_TC_UINT: case WMPI_TC_BOOL: case WMPI_TC_BYTE:
        return wmpi_datatype_is_predefined(dt);
    default:
        return 0;
    }
}

/* All of the checks of one call; the first failure's class, or 0. */
static int check_all(MPI_Win w, const wmpi_rma_args *a, int no_op)
{
    int cls = 0;

    if (a->odt)
        cls = check_side(a->ocount, a->odt);
    if (!cls && a->rdt)
        cls = check_side(a->rcount, a->rdt);
    if (!cls)
        cls = check_side(a->tcount, a->tdt);
    if (!cls)
        cls = check_target(w, a->target, (MPI_Aint)a->tdisp);
    if (!cls && (a->kind == WMPI_RMA_ACC || a->kind == WMPI_RMA_GACC))
        cls = check_op((MPI_Op)a->op, a->tdt, no_op);
    if (!cls && a->kind == WMPI_RMA_CAS && !cas_type(a->tdt))
        cls = MPI_ERR_TYPE;
    return cls;
}

/* MPI_PROC_NULL: nothing to do; a request-based call gets a request
 * that is complete already (as a receive from MPI_PROC_NULL). */
static int proc_null(MPI_Win w, const wmpi_rma_args *a, const char *fn)
{
    if (!a->ureq)
        return MPI_SUCCESS;
    return wbind_win_return(w, wmpi_irecv(NULL, 0, MPI_BYTE, WMPI_PROC_NULL,
                                          0, w->comm, a->ureq), fn);
}

static int run(MPI_Win w, const wmpi_rma_args *a, int no_op, const char *fn)
{
    int cls;

    WBIND_WIN_CHECK(w, fn);
    cls = check_all(w, a, no_op);
    if (cls)
        return wbind_win_fail(w, cls, fn);
    if (a->target == MPI_PROC_NULL)
        return proc_null(w, a, fn);
    return wbind_win_return(w, wmpi_rma_start(w, a), fn);
}

/* The request-based calls: as their blocking twins, with a request. */
static int run_req(MPI_Win w, wmpi_rma_args *a, MPI_Request *request,
                   int no_op, const char *fn)
{
    WBIND_WIN_CHECK(w, fn);
    if (!request)
        return wbind_win_fail(w, MPI_ERR_REQUEST, fn);
    *request = MPI_REQUEST_NULL;
    a->ureq = request;
    return run(w, a, no_op, fn);
}

int PMPI_Put(const void *origin_addr, int origin_count,
             MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count,
             MPI_Datatype target_datatype, MPI_Win win)
{
    wmpi_rma_args a = { .kind = WMPI_RMA_PUT, .obuf = origin_addr,
                        .ocount = origin_count, .odt = origin_datatype,
                        .target = target_rank, .tdisp = target_disp,
                        .tcount = target_count, .tdt = target_datatype };

    return run(win, &a, 0, "MPI_Put");
}
WMPI_ALIAS(Put)

int PMPI_Get(void *origin_addr, int origin_count,
             MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count,
             MPI_Datatype target_datatype, MPI_Win win)
{
    wmpi_rma_args a = { .kind = WMPI_RMA_GET, .rbuf = origin_addr,
                        .rcount = origin_count, .rdt = origin_datatype,
                        .target = target_rank, .tdisp = target_disp,
                        .tcount = target_count, .tdt = target_datatype };

    return run(win, &a, 0, "MPI_Get");
}
WMPI_ALIAS(Get)

int PMPI_Accumulate(const void *origin_addr, int origin_count,
                    MPI_Datatype origin_datatype, int target_rank,
                    MPI_Aint target_disp, int target_count,
                    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    wmpi_rma_args a = { .kind = WMPI_RMA_ACC, .obuf = origin_addr,
                        .ocount = origin_count, .odt = origin_datatype,
                        .target = target_rank, .tdisp = target_disp,
                        .tcount = target_count, .tdt = target_datatype,
                        .op = op };

    return run(win, &a, 0, "MPI_Accumulate");
}
WMPI_ALIAS(Accumulate)

int PMPI_Get_accumulate(const void *origin_addr, int origin_count,
                        MPI_Datatype origin_datatype, void *result_addr,
                        int result_count, MPI_Datatype result_datatype,
                        int target_rank, MPI_Aint target_disp,
                        int target_count, MPI_Datatype target_datatype,
                        MPI_Op op, MPI_Win win)
{
    wmpi_rma_args a = { .kind = WMPI_RMA_GACC, .obuf = origin_addr,
                        .ocount = origin_count, .odt = origin_datatype,
                        .rbuf = result_addr, .rcount = result_count,
                        .rdt = result_datatype, .target = target_rank,
                        .tdisp = target_disp, .tcount = target_count,
                        .tdt = target_datatype, .op = op };

    if (op == MPI_NO_OP) /* the origin buffer is ignored */
        a.odt = NULL;
    return run(win, &a, 1, "MPI_Get_accumulate");
}
WMPI_ALIAS(Get_accumulate)

int PMPI_Fetch_and_op(const void *origin_addr, void *result_addr,
                      MPI_Datatype datatype, int target_rank,
                      MPI_Aint target_disp, MPI_Op op, MPI_Win win)
{
    wmpi_rma_args a = { .kind = WMPI_RMA_GACC, .obuf = origin_addr,
                        .ocount = 1, .odt = datatype, .rbuf = result_addr,
                        .rcount = 1, .rdt = datatype, .target = target_rank,
                        .tdisp = target_disp, .tcount = 1, .tdt = datatype,
                        .op = op };

    if (op == MPI_NO_OP)
        a.odt = NULL;
    return run(win, &a, 1, "MPI_Fetch_and_op");
}
WMPI_ALIAS(Fetch_and_op)

int PMPI_Compare_and_swap(const void *origin_addr, const void *compare_addr,
                          void *result_addr, MPI_Datatype datatype,
                          int target_rank, MPI_Aint target_disp, MPI_Win win)
{
    wmpi_rma_args a = { .kind = WMPI_RMA_CAS, .obuf = origin_addr,
                        .ocount = 1, .odt = datatype, .cbuf = compare_addr,
                        .rbuf = result_addr, .rcount = 1, .rdt = datatype,
                        .target = target_rank, .tdisp = target_disp,
                        .tcount = 1, .tdt = datatype };

    return run(win, &a, 0, "MPI_Compare_and_swap");
}
WMPI_ALIAS(Compare_and_swap)

int PMPI_Rput(const void *origin_addr, int origin_count,
              MPI_Datatype origin_datatype, int target_rank,
              MPI_Aint target_disp, int target_count,
              MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
    wmpi_rma_args a = { .kind = WMPI_RMA_PUT, .obuf = origin_addr,
                        .ocount = origin_count, .odt = origin_datatype,
                        .target = target_rank, .tdisp = target_disp,
                        .tcount = target_count, .tdt = target_datatype };

    return run_req(win, &a, request, 0, "MPI_Rput");
}
WMPI_ALIAS(Rput)

int PMPI_Rget(void *origin_addr, int origin_count,
              MPI_Datatype origin_datatype, int target_rank,
              MPI_Aint target_disp, int target_count,
              MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
    wmpi_rma_args a = { .kind = WMPI_RMA_GET, .rbuf = origin_addr,
                        .rcount = origin_count, .rdt = origin_datatype,
                        .target = target_rank, .tdisp = target_disp,
                        .tcount = target_count, .tdt = target_datatype };

    return run_req(win, &a, request, 0, "MPI_Rget");
}
WMPI_ALIAS(Rget)

int PMPI_Raccumulate(const void *origin_addr, int origin_count,
                     MPI_Datatype origin_datatype, int target_rank,
                     MPI_Aint target_disp, int target_count,
                     MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                     MPI_Request *request)
{
    wmpi_rma_args a = { .kind = WMPI_RMA_ACC, .obuf = origin_addr,
                        .ocount = origin_count, .odt = origin_datatype,
                        .target = target_rank, .tdisp = target_disp,
                        .tcount = target_count, .tdt = target_datatype,
                        .op = op };

    return run_req(win, &a, request, 0, "MPI_Raccumulate");
}
WMPI_ALIAS(Raccumulate)

int PMPI_Rget_accumulate(const void *origin_addr, int origin_count,
                         MPI_Datatype origin_datatype, void *result_addr,
                         int result_count, MPI_Datatype result_datatype,
                         int target_rank, MPI_Aint target_disp,
                         int target_count, MPI_Datatype target_datatype,
                         MPI_Op op, MPI_Win win, MPI_Request *request)
{
    wmpi_rma_args a = { .kind = WMPI_RMA_GACC, .obuf = origin_addr,
                        .ocount = origin_count, .odt = origin_datatype,
                        .rbuf = result_addr, .rcount = result_count,
                        .rdt = result_datatype, .target = target_rank,
                        .tdisp = target_disp, .tcount = target_count,
                        .tdt = target_datatype, .op = op };

    if (op == MPI_NO_OP)
        a.odt = NULL;
    return run_req(win, &a, request, 1, "MPI_Rget_accumulate");
}
WMPI_ALIAS(Rget_accumulate)
