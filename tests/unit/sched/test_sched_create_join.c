/* Thread life cycle: weft_thread_create + weft_thread_join.
 *
 * Checks that join returns the thread function's return value or the value
 * given to weft_thread_exit; that thousands of threads can be created and
 * joined; that attributes are honoured (name, default name, truncation,
 * priority, stack size); that ids are unique, increasing and never reused;
 * that joining oneself gives WEFT_EDEADLK, that two joiners of one thread
 * get 0 and WEFT_ESRCH; the WEFT_EINVAL cases; and that an external pthread
 * can create and join a ULT.
 *
 * cmocka assertions are only made on the main thread: a ULT records what it
 * saw and main checks it after the join.
 */
#include "test_support.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <weft.h>

#define DEADLINE_NS 10000000000LL /* hang guard only, never a timing check */

static void *plus_one(void *arg)
{
    return (void *)((uintptr_t)arg + 1);
}

static void test_join_returns_value(void **state)
{
    (void)state;
    weft_thread_t t = WEFT_THREAD_NULL;
    void *ret = NULL;

    assert_int_equal(weft_thread_create(&t, NULL, plus_one, (void *)41), 0);
    assert_non_null(t);
    assert_int_equal(weft_thread_join(t, &ret), 0);
    assert_int_equal((uintptr_t)ret, 42);

    /* retval NULL is allowed */
    assert_int_equal(weft_thread_create(&t, NULL, plus_one, NULL), 0);
    assert_int_equal(weft_thread_join(t, NULL), 0);
}

/* ----------------------------------------------------------- exit value */

static atomic_int after_exit_ran;

static void exit_from_nested(void *v)
{
    weft_thread_exit(v);
}

static void *exiter(void *arg)
{
    exit_from_nested(arg);
    atomic_store(&after_exit_ran, 1); /* must never run */
    return NULL;
}

static void test_exit_value(void **state)
{
    (void)state;
    weft_thread_t t;
    void *ret = NULL;

    assert_int_equal(weft_thread_create(&t, NULL, exiter, (void *)0x5eed), 0);
    assert_int_equal(weft_thread_join(t, &ret), 0);
    assert_ptr_equal(ret, (void *)0x5eed);
    assert_int_equal(atomic_load(&after_exit_ran), 0);
}

/* --------------------------------------------------------- many threads */

#define MANY 2000
static atomic_int many_ran;

static void *count_and_echo(void *arg)
{
    atomic_fetch_add(&many_ran, 1);
    return arg;
}

static void test_many_threads(void **state)
{
    (void)state;
    static weft_thread_t ts[MANY];

    atomic_store(&many_ran, 0);
    for (uintptr_t i = 0; i < MANY; i++)
        assert_int_equal(weft_thread_create(&ts[i], NULL, count_and_echo,
                                            (void *)i), 0);
    for (uintptr_t i = 0; i < MANY; i++) {
        void *ret = NULL;
        assert_int_equal(weft_thread_join(ts[i], &ret), 0);
        assert_int_equal((uintptr_t)ret, i);
    }
    assert_int_equal(atomic_load(&many_ran), MANY);
}

/* ----------------------------------------------------------- attributes */

struct seen {
    char name[64];
    int prio;
    uint64_t id;
};

static void *report_self(void *arg)
{
    struct seen *s = arg;
    weft_thread_t me = weft_thread_self();
    const char *n = weft_thread_name(me);

    snprintf(s->name, sizeof s->name, "%s", n ? n : "(null)");
    s->prio = weft_thread_get_priority(me);
    s->id = weft_thread_id(me);
    return NULL;
}

static void test_attr_name_and_priority(void **state)
{
    (void)state;
    weft_thread_attr a;
    weft_thread_t t;
    struct seen s = {0};

    weft_thread_attr_init(&a);
    assert_int_equal(a.priority, WEFT_PRIO_DEFAULT);
    assert_int_equal(a.detached, 0);
    a.name = "worker-bee";
    a.priority = 5;
    assert_int_equal(weft_thread_create(&t, &a, report_self, &s), 0);
    assert_string_equal(weft_thread_name(t), "worker-bee");
    assert_int_equal(weft_thread_get_priority(t), 5);
    uint64_t id = weft_thread_id(t);
    assert_int_equal(weft_thread_join(t, NULL), 0);
    assert_string_equal(s.name, "worker-bee");
    assert_int_equal(s.prio, 5);
    assert_int_equal(s.id, id);
}

static void test_attr_name_copied(void **state)
{
    (void)state;
    weft_thread_attr a;
    weft_thread_t t;
    struct seen s = {0};
    char buf[16] = "copied";

    weft_thread_attr_init(&a);
    a.name = buf; /* overwritten right after create: the copy must survive */
    assert_int_equal(weft_thread_create(&t, &a, report_self, &s), 0);
    strcpy(buf, "clobbered");
    assert_string_equal(weft_thread_name(t), "copied");
    assert_int_equal(weft_thread_join(t, NULL), 0);
    assert_string_equal(s.name, "copied");
}

static void test_default_name_and_truncation(void **state)
{
    (void)state;
    weft_thread_attr a;
    weft_thread_t t;
    char want[64];
    const char *longname = "0123456789012345678901234567890123456789";

    assert_int_equal(weft_thread_create(&t, NULL, plus_one, NULL), 0);
    snprintf(want, sizeof want, "ult-%llu",
             (unsigned long long)weft_thread_id(t));
    assert_string_equal(weft_thread_name(t), want);
    assert_int_equal(weft_thread_set_name(t, longname), 0);
    assert_int_equal(strlen(weft_thread_name(t)), 31);
    assert_memory_equal(weft_thread_name(t), longname, 31);
    assert_int_equal(weft_thread_join(t, NULL), 0);

    weft_thread_attr_init(&a);
    a.name = longname;
    assert_int_equal(weft_thread_create(&t, &a, plus_one, NULL), 0);
    assert_int_equal(strlen(weft_thread_name(t)), 31);
    assert_memory_equal(weft_thread_name(t), longname, 31);
    assert_int_equal(weft_thread_join(t, NULL), 0);
}

static void test_set_priority(void **state)
{
    (void)state;
    weft_thread_attr a;
    weft_thread_t t;

    weft_thread_attr_init(&a);
    a.priority = WEFT_PRIO_MIN;
    assert_int_equal(weft_thread_create(&t, &a, plus_one, NULL), 0);
    assert_int_equal(weft_thread_set_priority(t, 2), 0);
    assert_int_equal(weft_thread_get_priority(t), 2);
    assert_int_equal(weft_thread_set_priority(t, WEFT_NUM_PRIOS), WEFT_EINVAL);
    assert_int_equal(weft_thread_set_priority(t, -1), WEFT_EINVAL);
    assert_int_equal(weft_thread_get_priority(t), 2);
    assert_int_equal(weft_thread_join(t, NULL), 0);
}

/* A 1.5 MiB frame only fits if the requested 2 MiB stack was given: with the
 * 256 KiB default it would hit the guard page and crash the test. */
#define BIG_FRAME (1536u * 1024u)

static void *use_big_frame(void *arg)
{
    volatile char big[BIG_FRAME];
    for (size_t i = 0; i < BIG_FRAME; i += 1024)
        big[i] = (char)i;
    big[BIG_FRAME - 1] = 1;
    return (void *)(uintptr_t)(big[BIG_FRAME - 1] + (arg != NULL));
}

static void test_attr_stack_size(void **state)
{
    (void)state;
    weft_thread_attr a;
    weft_thread_t t;
    void *ret = NULL;

    weft_thread_attr_init(&a);
    a.stack_size = 2u * 1024u * 1024u;
    assert_int_equal(weft_thread_create(&t, &a, use_big_frame, NULL), 0);
    assert_int_equal(weft_thread_join(t, &ret), 0);
    assert_int_equal((uintptr_t)ret, 1);
}

/* ------------------------------------------------------------------ ids */

#define ID_CREATORS 4
#define ID_PER_CREATOR 50
static uint64_t ids[ID_CREATORS * ID_PER_CREATOR];
static atomic_int id_errors;

static void *create_and_record_ids(void *arg)
{
    uintptr_t base = (uintptr_t)arg * ID_PER_CREATOR;
    for (uintptr_t i = 0; i < ID_PER_CREATOR; i++) {
        weft_thread_t t;
        if (weft_thread_create(&t, NULL, plus_one, NULL) != 0) {
            atomic_fetch_add(&id_errors, 1);
            continue;
        }
        ids[base + i] = weft_thread_id(t);
        if (weft_thread_join(t, NULL) != 0)
            atomic_fetch_add(&id_errors, 1);
    }
    return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static void test_ids_increasing(void **state)
{
    (void)state;
    uint64_t prev = weft_thread_id(weft_thread_self());

    assert_int_equal(prev, 1);
    for (int i = 0; i < 20; i++) {
        weft_thread_t t;
        assert_int_equal(weft_thread_create(&t, NULL, plus_one, NULL), 0);
        uint64_t id = weft_thread_id(t);
        assert_true(id > prev); /* also: never reused after a join */
        prev = id;
        assert_int_equal(weft_thread_join(t, NULL), 0);
    }
}

static void test_ids_unique_concurrent(void **state)
{
    (void)state;
    weft_thread_t c[ID_CREATORS];
    const size_t n = ID_CREATORS * ID_PER_CREATOR;

    atomic_store(&id_errors, 0);
    for (uintptr_t i = 0; i < ID_CREATORS; i++)
        assert_int_equal(weft_thread_create(&c[i], NULL, create_and_record_ids,
                                            (void *)i), 0);
    for (int i = 0; i < ID_CREATORS; i++)
        assert_int_equal(weft_thread_join(c[i], NULL), 0);
    assert_int_equal(atomic_load(&id_errors), 0);
    qsort(ids, n, sizeof ids[0], cmp_u64);
    assert_true(ids[0] > 1);
    for (size_t i = 1; i < n; i++)
        assert_true(ids[i] > ids[i - 1]);
}

/* ------------------------------------------------------- join self etc. */

static void *join_self(void *arg)
{
    (void)arg;
    return (void *)(intptr_t)weft_thread_join(weft_thread_self(), NULL);
}

static void test_join_self_deadlk(void **state)
{
    (void)state;
    weft_thread_t t;
    void *ret = NULL;

    assert_int_equal(weft_thread_join(weft_thread_self(), NULL), WEFT_EDEADLK);
    assert_int_equal(weft_thread_create(&t, NULL, join_self, NULL), 0);
    assert_int_equal(weft_thread_join(t, &ret), 0);
    assert_int_equal((intptr_t)ret, WEFT_EDEADLK);
}

/* Two joiners: t stays alive until the losing join has returned, so the
 * loser never touches a released thread. */
static atomic_int esrch_count;
static atomic_int bad_join_rc;
static weft_thread_t contested;

static void *linger_until_loser(void *arg)
{
    (void)arg;
    int64_t end = wt_now_ns() + DEADLINE_NS;
    while (atomic_load(&esrch_count) == 0 && wt_now_ns() < end)
        weft_thread_yield();
    return NULL;
}

static void note_join_rc(int rc)
{
    if (rc == WEFT_ESRCH)
        atomic_fetch_add(&esrch_count, 1);
    else if (rc != 0)
        atomic_store(&bad_join_rc, rc);
}

static void *second_joiner(void *arg)
{
    (void)arg;
    int rc = weft_thread_join(contested, NULL);
    note_join_rc(rc);
    return (void *)(intptr_t)rc;
}

static void test_two_joiners_esrch(void **state)
{
    (void)state;
    weft_thread_t j;
    void *jrc = NULL;

    atomic_store(&esrch_count, 0);
    atomic_store(&bad_join_rc, 0);
    assert_int_equal(weft_thread_create(&contested, NULL, linger_until_loser,
                                        NULL), 0);
    assert_int_equal(weft_thread_create(&j, NULL, second_joiner, NULL), 0);
    weft_thread_yield();
    int rc = weft_thread_join(contested, NULL);
    note_join_rc(rc);
    assert_int_equal(weft_thread_join(j, &jrc), 0);
    assert_int_equal(atomic_load(&bad_join_rc), 0);
    assert_int_equal(atomic_load(&esrch_count), 1);
    /* exactly one of the two joins succeeded */
    assert_true((rc == 0) != ((intptr_t)jrc == 0));
}

/* ---------------------------------------------------------- bad inputs */

static void test_einval(void **state)
{
    (void)state;
    weft_thread_attr a;
    weft_thread_t t = (weft_thread_t)(uintptr_t)0x1;

    assert_int_equal(weft_thread_create(&t, NULL, NULL, NULL), WEFT_EINVAL);
    assert_null(t);
    weft_thread_attr_init(&a);
    a.priority = -1;
    t = (weft_thread_t)(uintptr_t)0x1;
    assert_int_equal(weft_thread_create(&t, &a, plus_one, NULL), WEFT_EINVAL);
    assert_null(t);
    a.priority = WEFT_NUM_PRIOS;
    assert_int_equal(weft_thread_create(&t, &a, plus_one, NULL), WEFT_EINVAL);
    /* out == NULL is only allowed for a detached thread */
    assert_int_equal(weft_thread_create(NULL, NULL, plus_one, NULL), WEFT_EINVAL);

    assert_int_equal(weft_thread_join(WEFT_THREAD_NULL, NULL), WEFT_EINVAL);
    assert_int_equal(weft_thread_detach(WEFT_THREAD_NULL), WEFT_EINVAL);
    assert_int_equal(weft_thread_id(WEFT_THREAD_NULL), 0);
    assert_null(weft_thread_name(WEFT_THREAD_NULL));
    assert_int_equal(weft_thread_set_name(WEFT_THREAD_NULL, "x"), WEFT_EINVAL);
    assert_int_equal(weft_thread_get_priority(WEFT_THREAD_NULL), WEFT_EINVAL);
    assert_int_equal(weft_thread_set_priority(WEFT_THREAD_NULL, 1), WEFT_EINVAL);
}

/* ------------------------------------------------ from an external pthread */

struct ext_result {
    int create_rc, join_rc;
    void *ret;
    atomic_int done;
};

static void *external_main(void *arg)
{
    struct ext_result *r = arg;
    weft_thread_t t = WEFT_THREAD_NULL;

    r->create_rc = weft_thread_create(&t, NULL, plus_one, (void *)99);
    if (r->create_rc == 0)
        r->join_rc = weft_thread_join(t, &r->ret);
    atomic_store(&r->done, 1);
    return NULL;
}

static void test_external_create_join(void **state)
{
    (void)state;
    struct ext_result r = {.create_rc = 1, .join_rc = 1};
    pthread_t pt;
    int64_t end = wt_now_ns() + DEADLINE_NS;

    assert_int_equal(pthread_create(&pt, NULL, external_main, &r), 0);
    /* Do not block main's worker in pthread_join: the new ULT may need it. */
    while (!atomic_load(&r.done) && wt_now_ns() < end)
        weft_thread_yield();
    assert_true(atomic_load(&r.done));
    assert_int_equal(pthread_join(pt, NULL), 0);
    assert_int_equal(r.create_rc, 0);
    assert_int_equal(r.join_rc, 0);
    assert_int_equal((uintptr_t)r.ret, 100);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_join_returns_value),
        cmocka_unit_test(test_exit_value),
        cmocka_unit_test(test_many_threads),
        cmocka_unit_test(test_attr_name_and_priority),
        cmocka_unit_test(test_attr_name_copied),
        cmocka_unit_test(test_default_name_and_truncation),
        cmocka_unit_test(test_set_priority),
        cmocka_unit_test(test_attr_stack_size),
        cmocka_unit_test(test_ids_increasing),
        cmocka_unit_test(test_ids_unique_concurrent),
        cmocka_unit_test(test_join_self_deadlk),
        cmocka_unit_test(test_two_joiners_esrch),
        cmocka_unit_test(test_einval),
        cmocka_unit_test(test_external_create_join),
    };
    return cmocka_run_group_tests(tests, wt_runtime_setup, wt_runtime_teardown);
}
