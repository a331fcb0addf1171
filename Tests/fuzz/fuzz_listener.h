/*
 * fuzz_listener.h — the loopback listener of the targets that play a server in
 * their own process (fuzz_response.c, fuzz_dates.c): a socket on 127.0.0.1 at a
 * port the kernel picks, and the pipe that tells the target's serving thread to
 * return. Not in fuzz_common.h: the other targets need no socket headers.
 */
#ifndef NC_FUZZ_LISTENER_H
#define NC_FUZZ_LISTENER_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Listens on 127.0.0.1 (a free port, written to *port) and makes the wake pipe
 * (wake[0] read by the serving thread, wake[1] written by the target): the
 * listener's descriptor. Aborts when either cannot be made. */
static inline int fuzz_listen(int *port, int wake[2]) {
    struct sockaddr_in a;
    socklen_t len = sizeof a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 8) != 0 ||
        getsockname(fd, (struct sockaddr *)&a, &len) != 0)
        abort();
    *port = ntohs(a.sin_port);
    if (pipe(wake) != 0) abort();
    return fd;
}

#endif
