/*
 * Who is at the other end of an accepted connection (see peer.h).
 */
#define _GNU_SOURCE /* struct ucred */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "peer.h"

static bool loopback(const struct sockaddr_storage *a)
{
    if (a->ss_family == AF_INET) {
        const struct sockaddr_in *v4 = (const struct sockaddr_in *)a;
        return (ntohl(v4->sin_addr.s_addr) >> 24) == 127;
    }
    if (a->ss_family == AF_INET6) {
        const struct in6_addr *v6 = &((const struct sockaddr_in6 *)a)->sin6_addr;
        return IN6_IS_ADDR_LOOPBACK(v6) ||
               (IN6_IS_ADDR_V4MAPPED(v6) && v6->s6_addr[12] == 127);
    }
    return false;
}

/* The address and port of a, as inet_diag wants them (IPv4 inside a
 * v4-mapped IPv6 address as IPv4). Returns the family. */
static int diag_addr(const struct sockaddr_storage *a, __be32 addr[4],
                     __be16 *port)
{
    memset(addr, 0, 4 * sizeof *addr);
    if (a->ss_family == AF_INET) {
        const struct sockaddr_in *v4 = (const struct sockaddr_in *)a;
        addr[0] = v4->sin_addr.s_addr;
        *port = v4->sin_port;
        return AF_INET;
    }
    const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)a;
    *port = v6->sin6_port;
    if (IN6_IS_ADDR_V4MAPPED(&v6->sin6_addr)) {
        memcpy(addr, v6->sin6_addr.s6_addr + 12, 4);
        return AF_INET;
    }
    memcpy(addr, v6->sin6_addr.s6_addr, 16);
    return AF_INET6;
}

/* The user owning the client's end of the loopback TCP connection fd:
 * one exact lookup of its four-tuple in the kernel's socket table. */
static bool tcp_peer_uid(int fd, const struct sockaddr_storage *peer,
                         uid_t *uid)
{
    struct sockaddr_storage local;
    socklen_t len = sizeof local;
    if (getsockname(fd, (struct sockaddr *)&local, &len) != 0)
        return false;
    struct {
        struct nlmsghdr nlh;
        struct inet_diag_req_v2 req;
    } q;
    memset(&q, 0, sizeof q);
    q.nlh.nlmsg_len = sizeof q;
    q.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
    q.nlh.nlmsg_flags = NLM_F_REQUEST;
    q.req.sdiag_protocol = IPPROTO_TCP;
    q.req.idiag_states = ~0u;
    /* The client's socket: its source is our peer, its destination us. */
    int fam = diag_addr(peer, q.req.id.idiag_src, &q.req.id.idiag_sport);
    if (diag_addr(&local, q.req.id.idiag_dst, &q.req.id.idiag_dport) != fam)
        return false;
    q.req.sdiag_family = (unsigned char)fam;
    q.req.id.idiag_cookie[0] = q.req.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
    int nl = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
    if (nl < 0)
        return false;
    struct timeval tv = { 0, 200 * 1000 };
    setsockopt(nl, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
    bool found = false;
    union {
        struct nlmsghdr nlh;
        char bytes[4096];
    } r;
    if (sendto(nl, &q, sizeof q, 0, (struct sockaddr *)&kernel, sizeof kernel) ==
        (ssize_t)sizeof q) {
        ssize_t n = recv(nl, &r, sizeof r, 0);
        if (n >= (ssize_t)(NLMSG_HDRLEN + sizeof(struct inet_diag_msg)) &&
            NLMSG_OK(&r.nlh, (size_t)n) &&
            r.nlh.nlmsg_type == SOCK_DIAG_BY_FAMILY) {
            const struct inet_diag_msg *m = NLMSG_DATA(&r.nlh);
            *uid = m->idiag_uid;
            found = true;
        }
    }
    close(nl);
    return found;
}

void weir__peer_key(int fd, char key[WEIR_PEER_KEY])
{
    struct sockaddr_storage peer;
    socklen_t len = sizeof peer;
    memset(&peer, 0, sizeof peer);
    if (getpeername(fd, (struct sockaddr *)&peer, &len) != 0) {
        snprintf(key, WEIR_PEER_KEY, "?");
        return;
    }
    if (peer.ss_family == AF_UNIX) {
        struct ucred cred;
        socklen_t cl = sizeof cred;
        if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cl) == 0)
            snprintf(key, WEIR_PEER_KEY, "u%lu", (unsigned long)cred.uid);
        else
            snprintf(key, WEIR_PEER_KEY, "unix");
        return;
    }
    uid_t uid;
    if (loopback(&peer) && tcp_peer_uid(fd, &peer, &uid)) {
        snprintf(key, WEIR_PEER_KEY, "u%lu", (unsigned long)uid);
        return;
    }
    char text[INET6_ADDRSTRLEN] = "?";
    if (peer.ss_family == AF_INET)
        inet_ntop(AF_INET, &((struct sockaddr_in *)&peer)->sin_addr, text,
                  sizeof text);
    else if (peer.ss_family == AF_INET6)
        inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&peer)->sin6_addr, text,
                  sizeof text);
    snprintf(key, WEIR_PEER_KEY, "a%s", text);
}

/* The parent of process pid (field 4 of /proc/PID/stat), or -1. */
static pid_t parent_of(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    /* "pid (comm) state ppid ...": comm may hold anything, even ')'. */
    char *end = strrchr(buf, ')');
    char state;
    long ppid;
    if (!end || sscanf(end + 1, " %c %ld", &state, &ppid) != 2)
        return -1;
    return (pid_t)ppid;
}

bool weir__peer_is_child(int fd)
{
    struct ucred cred;
    socklen_t cl = sizeof cred;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cl) != 0 ||
        cred.pid <= 0 || cred.uid != geteuid())
        return false;
    /* A child, or a child's child (a WEIR_PYTHON wrapper that runs Python
     * without exec): a process cannot choose its ancestors. */
    pid_t me = getpid(), p = cred.pid;
    for (int depth = 0; depth < 16 && p > 1; depth++) {
        p = parent_of(p);
        if (p == me)
            return true;
    }
    return false;
}
