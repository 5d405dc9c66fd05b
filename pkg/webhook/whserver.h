/*
 * whserver.h - the webhook on Turnstile's HTTPS server (httpd/server.h):
 * Turnstile's webhook port (9443, as Kueue's), POSTs answered by
 * ts_webhook_handle() (a path it does not serve is a 404 before the body is
 * read, a body over TS_WEBHOOK_MAX_BODY a 413), GETs of /healthz and
 * /readyz, log lines and messages under "webhook".  Everything else -
 * TLS, limits, deadlines, certificate reload, the health listener on
 * Kueue's health port (8081) - is the server's; reload, ports and free are
 * ts_httpd_server_*().
 *
 * Thread rule: the server's threads read `wh`, which is immutable.
 * Ownership: the server borrows `wh` (it must outlive the server).
 */
#ifndef TS_WHSERVER_H
#define TS_WHSERVER_H

#include "httpd/server.h"
#include "util/err.h"
#include "webhook/webhook.h"

#define TS_WHSERVER_DEFAULT_PORT        9443
#define TS_WHSERVER_DEFAULT_HEALTH_PORT 8081

/* The server's defaults (ts_httpd_server_options_init()) with the
 * webhook's name, port (TS_WHSERVER_DEFAULT_PORT) and body limit
 * (TS_WEBHOOK_MAX_BODY); no health listener. */
void ts_whserver_options_init(struct ts_httpd_server_options *o);

/* Starts the server of o (copied) answering POSTs with wh's handlers (wh
 * may be NULL: POSTs then get 405) in place of o's POST handler.  Returns
 * as ts_httpd_server_start().  Ownership: *out is freed with
 * ts_httpd_server_free(); wh is borrowed, the PEMs are copied. */
int ts_whserver_start(const struct ts_webhook *wh, const struct ts_httpd_server_options *o,
                      const char *cert_pem, const char *key_pem, struct ts_httpd_server **out,
                      struct ts_err *err);

#endif
