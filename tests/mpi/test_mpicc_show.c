/* mpicc's introspection, which CMake's FindMPI and autotools rely on:
 * --showme:compile / --showme:link print the flags, -show / --showme print
 * the command with the arguments in place (no link flags when compiling
 * only), and the underlying compiler comes from WEFT_MPICC_CC or CC, never
 * from a CC that names mpicc itself, as --help says; MPICH's -cc=COMPILER
 * overrides them, and Open MPI's --showme:help prints the usage. mpicc sits
 * beside mpirun in bin/. */
#include <libgen.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "launch_harness.h"

static char mpicc[4096];

static int find_mpicc(void **state)
{
    (void)state;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", wt_mpirun());
    snprintf(mpicc, sizeof mpicc, "%s/mpicc", dirname(dir));
    unsetenv("CC");
    unsetenv("WEFT_MPICC_CC");
    return 0;
}

/* mpicc's output for these arguments (must exit 0); caller frees. */
static char *show(char *const argv[])
{
    struct wt_job j;
    assert_int_equal(wt_run(&j, argv, NULL, 0, 60), 0);
    char *out = j.out;
    j.out = NULL;
    wt_job_free(&j);
    return out;
}

static void test_showme_compile_and_link(void **state)
{
    (void)state;
    char *c = show(WT_ARGV(mpicc, "--showme:compile"));
    char *l = show(WT_ARGV(mpicc, "-showme:link"));
    assert_non_null(strstr(c, "mpi_shim/include"));
    assert_non_null(strstr(c, "-pthread"));
    assert_null(strstr(c, "-lweft"));
    assert_non_null(strstr(l, "-lweft_mpi -lweft"));
    assert_non_null(strstr(l, "-L"));
    assert_null(strstr(l, "-I"));
    free(c);
    free(l);
}

static void test_show_full_command(void **state)
{
    (void)state;
    char *s = show(WT_ARGV(mpicc, "-show", "hello.c", "-o", "hello"));
    assert_true(!strncmp(s, "cc -I", 5));
    char *src = strstr(s, " hello.c -o hello ");
    assert_non_null(src);
    assert_true(strstr(s, "-lweft_mpi") > src); /* libraries after the sources */
    assert_null(strstr(s, "-show"));
    free(s);
    s = show(WT_ARGV(mpicc, "--showme", "-c", "hello.c"));
    assert_non_null(strstr(s, " -c hello.c"));
    assert_null(strstr(s, "-lweft"));
    free(s);
}

static void test_compiler_choice(void **state)
{
    (void)state;
    setenv("CC", "mpicc", 1); /* would call itself: ignored */
    char *s = show(WT_ARGV(mpicc, "--showme:command"));
    assert_string_equal(s, "cc\n");
    free(s);
    setenv("CC", "gcc", 1);
    s = show(WT_ARGV(mpicc, "--showme:command"));
    assert_string_equal(s, "gcc\n");
    free(s);
    setenv("WEFT_MPICC_CC", "clang", 1);
    s = show(WT_ARGV(mpicc, "--showme:command"));
    assert_string_equal(s, "clang\n");
    free(s);
    unsetenv("CC");
    unsetenv("WEFT_MPICC_CC");
}

static void test_help_names_the_compiler_variables(void **state)
{
    (void)state;
    setenv("CC", "gcc", 1);
    char *s = show(WT_ARGV(mpicc, "--help"));
    assert_true(!strncmp(s, "usage: mpicc", 12));
    assert_non_null(strstr(s, "$WEFT_MPICC_CC if set, else $CC, else cc (now: gcc)"));
    free(s);
    unsetenv("CC");
}

/* MPICH's -cc=COMPILER wins over the variables and is not passed on. */
static void test_cc_option(void **state)
{
    (void)state;
    setenv("WEFT_MPICC_CC", "clang", 1);
    char *s = show(WT_ARGV(mpicc, "-cc=gcc", "--showme:command"));
    assert_string_equal(s, "gcc\n");
    free(s);
    s = show(WT_ARGV(mpicc, "-show", "hello.c", "-cc=tcc", "-o", "hello"));
    assert_true(!strncmp(s, "tcc -I", 6));
    assert_non_null(strstr(s, " hello.c -o hello "));
    assert_null(strstr(s, "-cc="));
    free(s);
    unsetenv("WEFT_MPICC_CC");
    struct wt_job j; /* naming the wrapper itself would recurse forever */
    assert_int_equal(wt_run(&j, WT_ARGV(mpicc, "-cc=mpicc", "-show"), NULL, 0, 60), 2);
    assert_non_null(strstr(j.err, "-cc="));
    wt_job_free(&j);
}

/* Open MPI's --showme:help is the usage, which names the compiler choices. */
static void test_showme_help(void **state)
{
    (void)state;
    char *s = show(WT_ARGV(mpicc, "--showme:help"));
    assert_true(!strncmp(s, "usage: mpicc", 12));
    assert_non_null(strstr(s, "-cc=COMPILER"));
    assert_non_null(strstr(s, "$WEFT_MPICC_CC if set"));
    free(s);
}

int main(int argc, char **argv)
{
    wt_launch_init(argc, argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_showme_compile_and_link),
        cmocka_unit_test(test_show_full_command),
        cmocka_unit_test(test_compiler_choice),
        cmocka_unit_test(test_help_names_the_compiler_variables),
        cmocka_unit_test(test_cc_option),
        cmocka_unit_test(test_showme_help),
    };
    return cmocka_run_group_tests(tests, find_mpicc, NULL);
}
