/*
 * Routing state over rtnetlink: see include/ncroute.h. The message layout and the
 * RTM_GETROUTE dump are those of rtnetlink(7) and netlink(7).
 */
#include "ncroute.h"

#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

int ncroute_open_monitor(void) {
    int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_ROUTE);
    if (fd < 0) return -1;
    struct sockaddr_nl addr;
    memset(&addr, 0, sizeof addr);
    addr.nl_family = AF_NETLINK;
    addr.nl_groups = RTMGRP_LINK | RTMGRP_IPV4_ROUTE | RTMGRP_IPV6_ROUTE;
    if (bind(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

int ncroute_drain(int fd) {
    char buf[8192];
    int count = 0;
    for (;;) {
        ssize_t n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
        if (n > 0) {
            count++;
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return count;
        return -1; /* ENOBUFS (overrun) or a closed socket: the caller reads the state again */
    }
}

/* Whether the interface `index` is up and running and not a loopback interface.
   An interface that cannot be asked about counts as usable: the route exists. */
static int usable_interface(int sock, int index) {
    struct ifreq req;
    memset(&req, 0, sizeof req);
    if (if_indextoname((unsigned)index, req.ifr_name) == NULL) return 1;
    if (ioctl(sock, SIOCGIFFLAGS, &req) != 0) return 1;
    short flags = req.ifr_flags;
    if (flags & IFF_LOOPBACK) return 0;
    return (flags & IFF_UP) && (flags & IFF_RUNNING);
}

/* Whether the destination of a route is loopback, link-local or multicast: a route
   to such a place never carries a request to a named host elsewhere. */
static int local_destination(unsigned char family, const unsigned char *dst, unsigned dst_len) {
    if (dst == NULL || dst_len == 0) return 0; /* a default route */
    if (family == AF_INET)
        return dst[0] == 127 || (dst[0] >= 224 && dst[0] <= 239) ||
               (dst[0] == 169 && dst[1] == 254 && dst_len >= 16);
    if (family == AF_INET6) {
        static const unsigned char loopback[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
        if (dst_len == 128 && memcmp(dst, loopback, 16) == 0) return 1;
        if (dst[0] == 0xff) return 1;                                             /* ff00::/8 */
        if (dst[0] == 0xfe && (dst[1] & 0xc0) == 0x80 && dst_len >= 10) return 1; /* fe80::/10 */
    }
    return 0;
}

/* Whether one RTM_NEWROUTE message describes a route off the machine. */
static int external_route(int sock, struct nlmsghdr *h) {
    struct rtmsg *r = NLMSG_DATA(h);
    if (h->nlmsg_len < NLMSG_LENGTH(sizeof *r)) return 0;
    if (r->rtm_family != AF_INET && r->rtm_family != AF_INET6) return 0;
    if (r->rtm_type != RTN_UNICAST) return 0; /* local, broadcast, unreachable, blackhole, ... */
    if (r->rtm_flags & RTNH_F_LINKDOWN) return 0;
    uint32_t table = r->rtm_table;
    const unsigned char *dst = NULL;
    int oif = 0;
    int len = (int)RTM_PAYLOAD(h);
    for (struct rtattr *a = RTM_RTA(r); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
        if (a->rta_type == RTA_TABLE && RTA_PAYLOAD(a) >= sizeof(uint32_t))
            memcpy(&table, RTA_DATA(a), sizeof table);
        else if (a->rta_type == RTA_DST) dst = RTA_DATA(a);
        else if (a->rta_type == RTA_OIF && RTA_PAYLOAD(a) >= sizeof(int))
            memcpy(&oif, RTA_DATA(a), sizeof oif);
    }
    if (table == RT_TABLE_LOCAL) return 0;
    if (local_destination(r->rtm_family, dst, r->rtm_dst_len)) return 0;
    return oif == 0 || usable_interface(sock, oif);
}

int ncroute_has_external_route(void) {
    int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    if (fd < 0) return -1;
    /* For SIOCGIFFLAGS: any socket will do. */
    int ioc = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (ioc < 0) ioc = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);

    struct {
        struct nlmsghdr h;
        struct rtmsg r;
    } req;
    memset(&req, 0, sizeof req);
    req.h.nlmsg_len = NLMSG_LENGTH(sizeof req.r);
    req.h.nlmsg_type = RTM_GETROUTE;
    req.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
    req.h.nlmsg_seq = 1;
    req.r.rtm_family = AF_UNSPEC; /* every family */
    struct sockaddr_nl kernel;
    memset(&kernel, 0, sizeof kernel);
    kernel.nl_family = AF_NETLINK;

    int result = -1;
    if (sendto(fd, &req, req.h.nlmsg_len, 0, (struct sockaddr *)&kernel, sizeof kernel) < 0) goto out;
    result = 0;
    /* Aligned for nlmsghdr; large enough for a typical dump part (the kernel sends
       at most about a page per datagram unless asked otherwise). */
    static __thread uint32_t buf[8192];
    for (;;) {
        ssize_t n = recv(fd, buf, sizeof buf, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            result = -1;
            goto out;
        }
        int left = (int)n;
        for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, left); h = NLMSG_NEXT(h, left)) {
            if (h->nlmsg_type == NLMSG_DONE) goto out;
            if (h->nlmsg_type == NLMSG_ERROR) {
                result = -1;
                goto out;
            }
            /* Read the whole dump even once found: the socket is closed anyway. */
            if (h->nlmsg_type == RTM_NEWROUTE && result == 0 && external_route(ioc, h)) result = 1;
        }
    }
out:
    if (ioc >= 0) close(ioc);
    close(fd);
    return result;
}
