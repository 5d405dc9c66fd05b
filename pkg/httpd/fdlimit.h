/*
 * fdlimit.h - how many connections this process's HTTP servers may hold.
 * Every connection is a file: the soft RLIMIT_NOFILE is raised to the hard
 * one at start, and each server sizes its connection limit from what it
 * then allows, so that idle clients run into a server's own limits (per
 * address, header deadline) before they run the process out of files.
 *
 * pkg/httpd is the shell's HTTP-server code shared by the webhook,
 * visibility, metrics and local API servers.
 */
#ifndef TS_HTTPD_FDLIMIT_H
#define TS_HTTPD_FDLIMIT_H

/* Raises the soft RLIMIT_NOFILE to the hard limit (logged at debug);
 * failures leave it as it was. */
void ts_httpd_raise_file_limit(void);

/* The soft RLIMIT_NOFILE less a reserve of 1024 for the rest of the
 * process (its client, informers, data files, logs), at least 256 and at
 * most `max` (an unlimited file limit gives `max`). */
unsigned ts_httpd_conn_budget(unsigned max);

#endif
