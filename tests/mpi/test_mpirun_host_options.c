/* Host options typed daily: -N / --npernode, --pernode and Hydra's -ppn
 * put N ranks on each host (and -n defaults to N per host); Hydra's -hosts
 * and -f (a "name:N" hostfile) name the hosts; an address of one of this
 * machine's interfaces is this host (started directly, not through the
 * launch agent); --map-by node deals ranks to the hosts in turn; -genv
 * sets a variable in every rank, -genvall passes all of mpirun's
 * environment to remote ranks. */
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "launch_harness.h"

#define AGENT "--launch-agent", "env WT_AGENT_HOST={host}", "--control-address", "127.0.0.1"
/* An agent whose remote ranks start from an empty environment, as over ssh. */
#define CLEAN_AGENT "--launch-agent", "env -i WT_AGENT_HOST={host}", "--control-address", \
                    "127.0.0.1"

static void want_lines(const char *out, const char *const *want, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!strstr(out, want[i]))
            fail_msg("missing \"%s\" in:\n%s", want[i], out);
}

static void test_npernode(void **state)
{
    (void)state;
    struct wt_job j;
    int st = wt_run(&j, WT_ARGV(WT_MPIRUN, AGENT, "-N", "2", "-hosts", "nodeA,nodeB", WT_PROG,
                                "env", "WEFT_MPI_HOST", "MPI_LOCALRANKID", "MPI_LOCALNRANKS"),
                    NULL, 0, 4);
    WT_ASSERT_STATUS(&j, st, st == 0);
    const char *want[] = {
        "rank 0 WEFT_MPI_HOST=nodeA\n", "rank 1 WEFT_MPI_HOST=nodeA\n",
        "rank 2 WEFT_MPI_HOST=nodeB\n", "rank 3 WEFT_MPI_HOST=nodeB\n",
        "rank 3 MPI_LOCALRANKID=1\n", "rank 2 MPI_LOCALNRANKS=2\n",
    };
    want_lines(j.out, want, sizeof want / sizeof want[0]);
    assert_null(strstr(j.out, "rank 4"));
    wt_job_free(&j);
}

static void test_pernode_and_ppn(void **state)
{
    (void)state;
    struct wt_job j;
    int st = wt_run(&j, WT_ARGV(WT_MPIRUN, AGENT, "--pernode", "--host", "nodeA,nodeB,nodeC",
                                WT_PROG, "env", "WEFT_MPI_HOST"), NULL, 0, 4);
    WT_ASSERT_STATUS(&j, st, st == 0);
    assert_non_null(strstr(j.out, "rank 2 WEFT_MPI_HOST=nodeC\n"));
    assert_null(strstr(j.out, "rank 3"));
    wt_job_free(&j);
    /* -ppn with -n: 1 per host, wrapping around. */
    st = wt_run(&j, WT_ARGV(WT_MPIRUN, AGENT, "-ppn", "1", "-n", "3", "-hosts", "nodeA:4,nodeB",
                            WT_PROG, "env", "WEFT_MPI_HOST"), NULL, 0, 4);
    WT_ASSERT_STATUS(&j, st, st == 0);
    const char *want[] = { "rank 0 WEFT_MPI_HOST=nodeA\n", "rank 1 WEFT_MPI_HOST=nodeB\n",
                           "rank 2 WEFT_MPI_HOST=nodeA\n" };
    want_lines(j.out, want, sizeof want / sizeof want[0]);
    wt_job_free(&j);
}

static void test_map_by_node(void **state)
{
    (void)state;
    struct wt_job j;
    int st = wt_run(&j, WT_ARGV(WT_MPIRUN, AGENT, "--map-by", "node", "-n", "5", "--host",
                                "nodeA:3,nodeB:1", WT_PROG, "env", "WEFT_MPI_HOST"), NULL, 0, 4);
    WT_ASSERT_STATUS(&j, st, st == 0);
    const char *want[] = { "rank 0 WEFT_MPI_HOST=nodeA\n", "rank 1 WEFT_MPI_HOST=nodeB\n",
                           "rank 2 WEFT_MPI_HOST=nodeA\n", "rank 3 WEFT_MPI_HOST=nodeA\n",
                           "rank 4 WEFT_MPI_HOST=nodeB\n" }; /* all full: in turn again */
    want_lines(j.out, want, sizeof want / sizeof want[0]);
    wt_job_free(&j);
}

static void test_hydra_hostfile(void **state)
{
    (void)state;
    struct wt_job j;
    char path[] = "wt_hydra_hosts_XXXXXX"; /* in the test's directory */
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char *text = "nodeA:2\nnodeB\n";
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    int st = wt_run(&j, WT_ARGV(WT_MPIRUN, AGENT, "-f", path, WT_PROG, "env", "WEFT_MPI_HOST"),
                    NULL, 0, 4);
    unlink(path);
    WT_ASSERT_STATUS(&j, st, st == 0);
    const char *want[] = { "rank 1 WEFT_MPI_HOST=nodeA\n", "rank 2 WEFT_MPI_HOST=nodeB\n" };
    want_lines(j.out, want, sizeof want / sizeof want[0]);
    assert_null(strstr(j.out, "rank 3"));
    wt_job_free(&j);
}

/* An IPv4 address of an interface other than loopback, or 0. */
static int own_address(char *buf, size_t len)
{
    struct ifaddrs *all;
    int found = 0;
    if (getifaddrs(&all) != 0)
        return 0;
    for (struct ifaddrs *a = all; a && !found; a = a->ifa_next) {
        if (!a->ifa_addr || a->ifa_addr->sa_family != AF_INET)
            continue;
        const struct in_addr *in = &((struct sockaddr_in *)a->ifa_addr)->sin_addr;
        found = (ntohl(in->s_addr) >> 24) != 127 && inet_ntop(AF_INET, in, buf, (socklen_t)len);
    }
    freeifaddrs(all);
    return found;
}

static void test_own_address_is_local(void **state)
{
    (void)state;
    struct wt_job j;
    char addr[INET_ADDRSTRLEN], hosts[64];
    if (!own_address(addr, sizeof addr))
        skip();
    snprintf(hosts, sizeof hosts, "%s:2", addr);
    unsetenv("WT_AGENT_HOST");
    int st = wt_run(&j, WT_ARGV(WT_MPIRUN, AGENT, "--host", hosts, WT_PROG, "env",
                                "WT_AGENT_HOST", "WEFT_MPI_HOST"), NULL, 0, 4);
    WT_ASSERT_STATUS(&j, st, st == 0);
    assert_int_equal(wt_count_lines(j.out, "rank 0 WT_AGENT_HOST unset"), 1);
    assert_int_equal(wt_count_lines(j.out, "rank 1 WT_AGENT_HOST unset"), 1);
    wt_job_free(&j);
}

/* An agent that records its command line in AGENT_ARGS, then runs it in
 * an empty environment. */
#define AGENT_SH   "wt_agent.sh"
#define AGENT_ARGS "wt_agent_args"

static void write_agent(void)
{
    const char *text = "#!/bin/sh\nhost=$1; shift\necho \"$@\" > " AGENT_ARGS
                       "\nexec env -i WT_AGENT_HOST=$host \"$@\"\n";
    FILE *f = fopen(AGENT_SH, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    assert_int_equal(chmod(AGENT_SH, 0755), 0);
}

/* Does the file hold s, hex-encoded as in the remote plan? */
static int file_has_hex(const char *path, const char *s)
{
    char hex[256] = "", text[65536] = "";
    for (size_t i = 0; s[i] && i < 120; i++)
        snprintf(hex + 2 * i, 3, "%02x", (unsigned char)s[i]);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    if (f)
        fclose(f);
    text[n] = '\0';
    return strstr(text, hex) != NULL;
}

static void test_genv_and_genvall(void **state)
{
    (void)state;
    struct wt_job j;
    setenv("WT_NOT_WEFT", "only with -genvall", 1);
    write_agent();
    int st = wt_run(&j, WT_ARGV(WT_MPIRUN, "--launch-agent", "./" AGENT_SH, "--control-address",
                                "127.0.0.1", "-genv", "WT_G", "g v", "-genvall", "-x",
                                "WT_X=on the line", "--host", "localhost,nodeR", WT_PROG, "env",
                                "WT_G", "WT_NOT_WEFT", "WT_AGENT_HOST"), NULL, 0, 4);
    WT_ASSERT_STATUS(&j, st, st == 0);
    /* -genvall's variables travel on the agent's stdin, not its command
     * line (ps shows that to everyone); -x ones are on it already. */
    assert_true(file_has_hex(AGENT_ARGS, "WT_X=on the line"));
    assert_false(file_has_hex(AGENT_ARGS, "WT_NOT_WEFT=only"));
    unlink(AGENT_SH);
    unlink(AGENT_ARGS);
    const char *want[] = { "rank 0 WT_G=g v\n", "rank 1 WT_G=g v\n",
                           "rank 1 WT_AGENT_HOST=nodeR\n",
                           "rank 1 WT_NOT_WEFT=only with -genvall\n" };
    want_lines(j.out, want, sizeof want / sizeof want[0]);
    wt_job_free(&j);
    st = wt_run(&j, WT_ARGV(WT_MPIRUN, CLEAN_AGENT, "--host", "nodeR", WT_PROG, "env",
                            "WT_NOT_WEFT"), NULL, 0, 4);
    WT_ASSERT_STATUS(&j, st, st == 0);
    assert_non_null(strstr(j.out, "rank 0 WT_NOT_WEFT unset\n"));
    wt_job_free(&j);
    unsetenv("WT_NOT_WEFT");
}

static void test_bad_values(void **state)
{
    (void)state;
    struct wt_job j;
    int st = wt_run(&j, WT_ARGV(WT_MPIRUN, "-N", "0", WT_PROG, "ok"), NULL, 0, 4);
    assert_int_equal(st, 2);
    assert_non_null(strstr(j.err, "-N '0': expected"));
    wt_job_free(&j);
    st = wt_run(&j, WT_ARGV(WT_MPIRUN, "-genv", "1X", "v", WT_PROG, "ok"), NULL, 0, 4);
    assert_int_equal(st, 2);
    assert_non_null(strstr(j.err, "-genv '1X': expected a variable name"));
    wt_job_free(&j);
}

int main(int argc, char **argv)
{
    wt_launch_init(argc, argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_npernode),
        cmocka_unit_test(test_pernode_and_ppn),
        cmocka_unit_test(test_map_by_node),
        cmocka_unit_test(test_hydra_hostfile),
        cmocka_unit_test(test_own_address_is_local),
        cmocka_unit_test(test_genv_and_genvall),
        cmocka_unit_test(test_bad_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
