/* The paper's Figure 1 and its registration example (Bougé, Danjean,
 * Namyst, Euro-Par 2002, section 2.2 and 3.1) compile against
 * <weft/pm2_io.h> as printed and work: receivers wait on requests through
 * thread_IO_wait, and each returns only once its own request completed.
 *
 * MPI is replaced by a stand-in whose requests are atomic flags that
 * another thread sets: MPI_Irecv hands out a flag, MPI_Testany reports the
 * first set flag among the requests it is given. Departures from the
 * printed text, all in the paper's own typos: `...` in MPI_Testany's
 * argument list becomes MPI_STATUS_IGNORE, and `&MPI_group()` /
 * `&MPI_poll()` become `&MPI_group` / `&MPI_poll`.
 *
 * Checked: ULT receivers and one external pthread receiver all return
 * from thread_IO_wait; every one of them finds its flag set when it
 * returns (never woken early); poll and group really ran (through the
 * trampolines, with thread_IO_for_each_request walking the waiters).
 */
#include "test_support.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <weft.h>
#include <weft/pm2_io.h>

/* ------------------------------------------------ the MPI stand-in */

typedef atomic_int *MPI_Request;
#define MPI_STATUS_IGNORE NULL
#define MAX_MPI_REQUEST 64

static atomic_int completion[MAX_MPI_REQUEST];
static atomic_int polls, groups;

static void MPI_Irecv(int slot, MPI_Request *request)
{
    *request = &completion[slot];
}

static void MPI_Testany(int count, MPI_Request *reqs, int *index, int *flag, void *status)
{
    (void)status;
    atomic_fetch_add(&polls, 1);
    *flag = 0;
    for (int i = 0; i < count; i++)
        if (atomic_load(reqs[i])) {
            *index = i;
            *flag = 1;
            return;
        }
}

/* ------------------------------------- Figure 1, as printed */

MPI_Request MPI_requests[MAX_MPI_REQUEST];
int MPI_count;

typedef struct { MPI_Request request; } MPI_IO_info_t;

void MPI_group(void) {
    MPI_IO_info_t *MPI_info;
    MPI_count=0;
    thread_IO_for_each_request(MPI_info) { /* Macro iterating on
                                           pending requests */
        MPI_requests[MPI_count++] = MPI_info->request;
    }
    atomic_fetch_add(&groups, 1);
}

int MPI_poll(void) {
    int index, flag;
    MPI_Testany(MPI_count, MPI_requests, &index, &flag, MPI_STATUS_IGNORE);
    if (!flag) return -1;
    return index;
}

/* ------------------------------------------------- registration */

static thread_IO_t MPI_handle;

static void register_as_printed(void)
{
    thread_IO_registration_t MPI_params;
    MPI_params.blocking_system_call = NULL;
    MPI_params.group = &MPI_group;
    MPI_params.poll = &MPI_poll;
    MPI_params.frequency = 1;
    MPI_handle=thread_IO_register(&MPI_params);
}

/* ------------------------------------------------------- the test */

#define NULTS 16
#define NRECV (NULTS + 1) /* plus one external pthread */

static atomic_int early; /* receivers that returned before completion */

static void *receiver(void *arg)
{
    int slot = (int)(intptr_t)arg;
    MPI_Request request;
    MPI_IO_info_t MPI_IO_info;
    MPI_Irecv(slot, &request);
    MPI_IO_info.request = request;
    thread_IO_wait(MPI_handle,
                   (void *) &MPI_IO_info);
    if (!atomic_load(request))
        atomic_fetch_add(&early, 1);
    return NULL;
}

/* Completes the requests in a scrambled order, a little apart. */
static void *sender(void *arg)
{
    (void)arg;
    struct timespec gap = { 0, 2 * 1000 * 1000 };
    for (int i = 0; i < NRECV; i++) {
        nanosleep(&gap, NULL);
        atomic_store(&completion[(i * 7) % NRECV], 1);
    }
    return NULL;
}

static void test_figure1_receivers_wake_on_completion(void **state)
{
    (void)state;
    register_as_printed();
    assert_non_null(MPI_handle);
    weft_thread_t t[NULTS];
    for (int i = 0; i < NULTS; i++)
        assert_int_equal(weft_thread_create(&t[i], NULL, receiver, (void *)(intptr_t)i), 0);
    pthread_t ext, snd;
    assert_int_equal(pthread_create(&ext, NULL, receiver, (void *)(intptr_t)NULTS), 0);
    assert_int_equal(pthread_create(&snd, NULL, sender, NULL), 0);
    for (int i = 0; i < NULTS; i++)
        assert_int_equal(weft_thread_join(t[i], NULL), 0);
    assert_int_equal(pthread_join(ext, NULL), 0);
    assert_int_equal(pthread_join(snd, NULL), 0);
    assert_int_equal(atomic_load(&early), 0);
    assert_true(atomic_load(&polls) > 0);
    assert_true(atomic_load(&groups) >= 2 * NRECV); /* one per add, one per removal */
    assert_int_equal(MPI_count, 0);
    assert_int_equal(thread_IO_unregister(MPI_handle), 0);
}

/* The paper's prototype takes the registration by value. */
static void test_register_by_value(void **state)
{
    (void)state;
    thread_IO_registration_t p = { NULL, NULL, MPI_poll, 0 };
    thread_IO_t h = thread_IO_register(p);
    assert_non_null(h);
    assert_int_equal(thread_IO_unregister(h), 0);
    p.poll = NULL;
    assert_null(thread_IO_register(p));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_figure1_receivers_wake_on_completion),
        cmocka_unit_test(test_register_by_value),
    };
    return cmocka_run_group_tests(tests, wt_runtime_setup, wt_runtime_teardown);
}
