/*
 * The kernel's routing state, read over rtnetlink (Linux), for the reachability
 * gate (Sources/NetCore/Features/Reachability/RouteWatcher.swift). Plain socket
 * calls: no state is kept here.
 */
#ifndef NETCORE_NCROUTE_H
#define NETCORE_NCROUTE_H

/* Opens a non-blocking rtnetlink socket subscribed to route and link changes
   (RTMGRP_IPV4_ROUTE | RTMGRP_IPV6_ROUTE | RTMGRP_LINK): readable when the routing
   state may have changed. Close with close(). -1 when netlink is not available. */
int ncroute_open_monitor(void);

/* Reads and discards every notification waiting on a monitor socket (they only say
   "something changed"). Returns how many datagrams were read, or -1 on an error
   other than "nothing left" (ENOBUFS, an overrun, also means: read the state again). */
int ncroute_drain(int fd);

/* Dumps the routing tables (IPv4 and IPv6) and says whether a route leaves the
   machine: 1 when some table other than "local" holds a unicast route whose
   destination is neither loopback, link-local nor multicast, that is not marked
   linkdown, and whose output interface (when the route names one) is up, running
   and not a loopback interface; 0 when none does; -1 when the tables could not be
   read. */
int ncroute_has_external_route(void);

#endif
