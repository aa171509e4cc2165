/* Which ranks share a host, as the transports see it: shared memory needs
 * one kernel (the boot id), one pid namespace (peers' pids must mean the
 * same processes), and TCP's loopback needs one network namespace. The
 * multi-host tests run "hosts" as network namespaces of one machine, so
 * each namespace counts as a host of its own. Also the way to take an fd
 * from another process of the host (pidfd_getfd), which shared memory
 * and shared windows use.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "transport/transport.h"

uint64_t wmpi_hash64(uint64_t h, const void *data, size_t n)
{
    const uint8_t *b = data;

    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3u;
    return h;
}

static uint64_t namespace_inode(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0 ? (uint64_t)st.st_ino : 0;
}

/* The boot id (or, without one, the host name) and the two namespaces'
 * inodes, each on its own, hashed twice into 16 bytes: XOR-ing the inodes
 * together made namespaces created side by side (inodes x and x + 1)
 * collide. */
void wmpi_host_identity(uint8_t id[16])
{
    struct {
        char boot[64];
        uint64_t net, pid;
    } what;
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");

    memset(&what, 0, sizeof what);
    if (!f || !fgets(what.boot, sizeof what.boot, f))
        gethostname(what.boot, sizeof what.boot - 1);
    if (f)
        fclose(f);
    what.net = namespace_inode("/proc/self/ns/net");
    what.pid = namespace_inode("/proc/self/ns/pid");
    uint64_t a = wmpi_hash64(WMPI_HASH64_SEED, &what, sizeof what);
    uint64_t b = wmpi_hash64(a ^ 0x9e3779b97f4a7c15u, &what, sizeof what);
    memcpy(id, &a, 8);
    memcpy(id + 8, &b, 8);
}

int wmpi_pidfd_open(pid_t pid)
{
    return (int)syscall(SYS_pidfd_open, pid, 0);
}

int wmpi_pidfd_getfd(int pidfd, int fd)
{
    return (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
}
