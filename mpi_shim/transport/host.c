/* Which ranks share a host, as the transports see it: shared memory needs
 * one kernel (the boot id), one pid namespace (peers' pids must mean the
 * same processes), and TCP's loopback needs one network namespace. The
 * multi-host tests run "hosts" as network namespaces of one machine, so
 * each namespace counts as a host of its own.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "transport/transport.h"

static void mix_namespace(uint8_t id[16], const char *path)
{
    struct stat st;

    if (stat(path, &st) == 0)
        for (int i = 0; i < 8; i++)
            id[8 + i] ^= (uint8_t)(st.st_ino >> (8 * i));
}

void wmpi_host_identity(uint8_t id[16])
{
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    int c, n = 0;

    memset(id, 0, 16);
    while (f && n < 32 && (c = fgetc(f)) != EOF) {
        if (c == '-' || c == '\n')
            continue;
        id[n / 2] = (uint8_t)(id[n / 2] << 4 | (c <= '9' ? c - '0' : (c | 32) - 'a' + 10));
        n++;
    }
    if (f)
        fclose(f);
    if (!n)
        gethostname((char *)id, 16);
    mix_namespace(id, "/proc/self/ns/net");
    mix_namespace(id, "/proc/self/ns/pid");
}
