/*
 * kubeconfig.c - writes a kubeconfig that points kubectl and the Python
 * client at this server (CA data for https, the bearer token if any),
 * atomically (temporary file + rename).
 */
#include "apiserver/server_int.h"

#include <stdio.h>
#include <string.h>

#include "apiserver/b64.h"

static void render(const struct ts_apiserver *s, struct ts_buf *out)
{
    ts_buf_adds(out, "apiVersion: v1\nkind: Config\nclusters:\n- name: turnstile\n  cluster:\n");
    ts_buf_addf(out, "    server: %s\n", s->url);
    if (s->tls) {
        ts_buf_adds(out, "    certificate-authority-data: ");
        ts_b64_encode(s->ca_pem, strlen(s->ca_pem), out);
        ts_buf_addc(out, '\n');
    }
    /* a user without credentials makes kubectl prompt for a password, so
     * write a token even when the server checks none */
    ts_buf_addf(out, "users:\n- name: turnstile\n  user:\n    token: \"%s\"\n",
                s->token ? s->token : "turnstile");
    ts_buf_adds(out, "contexts:\n- name: turnstile\n  context:\n    cluster: turnstile\n"
                     "    user: turnstile\n    namespace: default\n"
                     "current-context: turnstile\npreferences: {}\n");
}

int ts__as_kubeconfig_write(const struct ts_apiserver *s, const char *path, struct ts_err *err)
{
    struct ts_buf text = TS_BUF_INIT, tmp = TS_BUF_INIT;
    FILE *f;
    int rc = 0;

    render(s, &text);
    ts_buf_addf(&tmp, "%s.tmp", path);
    if (!(f = fopen(tmp.ptr, "w")) || fwrite(text.ptr, 1, text.len, f) != text.len) {
        rc = ts_err_set(err, TS_EIO, "cannot write kubeconfig '%s'", path);
        if (f)
            fclose(f);
    } else if (fclose(f) != 0 || rename(tmp.ptr, path) != 0) {
        rc = ts_err_set(err, TS_EIO, "cannot write kubeconfig '%s'", path);
    }
    ts_buf_release(&text);
    ts_buf_release(&tmp);
    return rc;
}
