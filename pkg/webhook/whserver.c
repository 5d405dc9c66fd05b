/*
 * whserver.c - ts_webhook_handle() as the POST handler of an HTTPS server
 * (see whserver.h).
 */
#include "webhook/whserver.h"

static int post(const void *ud, const char *path, const char *body, size_t len, struct ts_buf *out)
{
    return ts_webhook_handle(ud, path, body, len, out);
}

static int post_path(const void *ud, const char *path)
{
    (void)ud;
    return ts_webhook_path_known(path);
}

void ts_whserver_options_init(struct ts_httpd_server_options *o)
{
    ts_httpd_server_options_init(o);
    o->name = "webhook";
    o->port = TS_WHSERVER_DEFAULT_PORT;
    o->max_body = TS_WEBHOOK_MAX_BODY;
}

int ts_whserver_start(const struct ts_webhook *wh, const struct ts_httpd_server_options *o,
                      const char *cert_pem, const char *key_pem, struct ts_httpd_server **out,
                      struct ts_err *err)
{
    struct ts_httpd_server_options so = *o;

    so.post = wh ? post : NULL;
    so.post_path = wh ? post_path : NULL;
    so.post_ud = wh;
    return ts_httpd_server_start(&so, cert_pem, key_pem, out, err);
}
