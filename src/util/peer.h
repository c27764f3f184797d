/*
 * Who is at the other end of a connection a server accepted, so that
 * servers (the Spark Connect endpoint, the UI) can bound what one peer
 * holds: the user of a local process, as the kernel knows it (SO_PEERCRED
 * on a unix-domain socket; for a loopback TCP connection, the owner of the
 * client's socket, from one exact lookup in the kernel's socket table over
 * netlink's socket diagnostics), else the address. And whether a
 * unix-domain peer is a child of this process.
 */
#ifndef WEIR_UTIL_PEER_H
#define WEIR_UTIL_PEER_H

#include <stdbool.h>

#define WEIR_PEER_KEY 48

/* "u<uid>" for a local process whose user the kernel names, else
 * "a<address>" ("?" when even that is unknown). */
void weir__peer_key(int fd, char key[WEIR_PEER_KEY]);

/* Is the process at the other end of the unix-domain connection fd, of
 * this user, a descendant of this process (its parent's parent ..., as
 * /proc says, a few levels up)? */
bool weir__peer_is_child(int fd);

#endif
