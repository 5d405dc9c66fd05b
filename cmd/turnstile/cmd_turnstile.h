/* cmd_turnstile.h - the modes of the turnstile binary. */
#ifndef TS_CMD_TURNSTILE_H
#define TS_CMD_TURNSTILE_H

/* The controller manager (every mode but --webhook-only).  Returns the
 * process exit code. */
int ts__turnstile_controller_main(int argc, char **argv);

#include "api/config.h"

/* Reads a Kueue Configuration file into c (initialised); errors, printed
 * to stderr, name the file, line and field.  Returns 0 or -1. */
int ts__turnstile_load_config(const char *path, struct ts_config *c);

#include "util/time.h"

/* webhook_ca.c: the cluster side of --webhook-only with internal
 * certificates: the shared Secret and CA injection.
 * ts__ca_injector_new() returns NULL (nothing to do) without an explicit
 * kubeconfig outside a cluster; secret NULL or "" keeps the certificate
 * to this process.  Ownership: free with ts__ca_injector_free(); ns and
 * secret are borrowed, ca_pem is copied. */
struct ts__ca_injector;
struct ts_certsrc;
struct ts_httpd_server;
struct ts__ca_injector *ts__ca_injector_new(const char *kubeconfig, const char *ns,
                                            const char *secret, int sync_period_s);
/* Syncs src with the Secret when due (or `force`); reloads srv (may be
 * NULL before it runs) when another replica's certificate was adopted.
 * Returns 1 when the certificate changed. */
int ts__ca_sync(struct ts__ca_injector *in, struct ts_certsrc *src, struct ts_httpd_server *srv,
                int force, ts_time now);
void ts__ca_inject(struct ts__ca_injector *in, const char *ca_pem, ts_time now);
void ts__ca_injector_free(struct ts__ca_injector *in);

#endif
