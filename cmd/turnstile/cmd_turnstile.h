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

/* webhook_ca.c: CA injection for --webhook-only with internal certificates.
 * ts__ca_injector_new() returns NULL (nothing to do) without an explicit
 * kubeconfig outside a cluster.  Ownership: free with
 * ts__ca_injector_free(); ca_pem is copied. */
struct ts__ca_injector;
struct ts__ca_injector *ts__ca_injector_new(const char *kubeconfig);
void ts__ca_inject(struct ts__ca_injector *in, const char *ca_pem, ts_time now);
void ts__ca_injector_free(struct ts__ca_injector *in);

#endif
