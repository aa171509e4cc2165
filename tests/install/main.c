/* Consumer of an installed Weft (see CMakeLists.txt beside this file, and the
 * pkg-config build in ci/test): start the runtime, create one user-level
 * thread, join it, check its result, print "ok". Exit status 0 on success. */
#include <stdint.h>
#include <stdio.h>
#include <weft.h>

static void *child(void *arg)
{
    return (void *)((uintptr_t)arg + 1);
}

static int fail(const char *what, int err)
{
    fprintf(stderr, "weft_install_consumer: %s: %s\n", what, weft_strerror(err));
    return 1;
}

int main(void)
{
    weft_thread_t t;
    void *ret = NULL;
    int err;

    if ((err = weft_init()) != 0)
        return fail("weft_init", err);
    if ((err = weft_thread_create(&t, NULL, child, (void *)(uintptr_t)41)) != 0)
        return fail("weft_thread_create", err);
    if ((err = weft_thread_join(t, &ret)) != 0)
        return fail("weft_thread_join", err);
    if ((uintptr_t)ret != 42) {
        fprintf(stderr, "weft_install_consumer: child returned %lu, expected 42\n",
                (unsigned long)(uintptr_t)ret);
        return 1;
    }
    if ((err = weft_fini()) != 0)
        return fail("weft_fini", err);
    puts("ok");
    return 0;
}
