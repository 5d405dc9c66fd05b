/* Certificates (pkg/httpd/cert.c): the generated CA and serving
 * certificate parsed back with OpenSSL (SANs, issuer signature,
 * validity), key/certificate pairs, verification against a CA and a host
 * name, and rotation with a fake now.  The names are the webhook's, as
 * its certificate has them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <stdlib.h>

#include "httpd/cert.h"
#include "util/alloc.h"
#include "util/buf.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))
#define SERVICE    "turnstile-webhook-service"
#define NAMESPACE  "turnstile-system"
#define NOW        (INT64_C(1795000000) * TS_TIME_SECOND) /* 2026-11-19 */
#define DAY        (TS_HTTPD_CERT_DAY * TS_TIME_SECOND)

static struct ts_httpd_cert_bundle bundle; /* generated once, shared by the tests */

static int setup(void **state)
{
    struct ts_httpd_cert_options o;
    struct ts_err err = {0};

    (void)state;
    ts_alloc_init();
    ts_httpd_cert_options_init(&o, SERVICE, NAMESPACE);
    o.extra_dns[0] = "localhost";
    o.ips[1] = "::1";
    ts_httpd_cert_bundle_init(&bundle);
    if (ts_httpd_cert_generate(&o, NOW, &bundle, &err))
        fail_msg("generate: %s", err.msg);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    ts_httpd_cert_bundle_release(&bundle);
    return 0;
}

static X509 *pem_cert(const char *pem)
{
    BIO *b = BIO_new_mem_buf(pem, -1);
    X509 *x = PEM_read_bio_X509(b, NULL, NULL, NULL);

    BIO_free(b);
    assert_non_null(x);
    return x;
}

/* The SANs as "DNS:x" / "IP:y" strings joined by ",". */
static void sans_of(X509 *x, struct ts_buf *out)
{
    GENERAL_NAMES *names = X509_get_ext_d2i(x, NID_subject_alt_name, NULL, NULL);

    for (int i = 0; i < sk_GENERAL_NAME_num(names); i++) {
        const GENERAL_NAME *g = sk_GENERAL_NAME_value(names, i);

        if (g->type == GEN_DNS)
            ts_buf_addf(out, "%sDNS:%s", out->len ? "," : "",
                        (const char *)ASN1_STRING_get0_data(g->d.dNSName));
        else if (g->type == GEN_IPADD)
            ts_buf_addf(out, "%sIP:%d", out->len ? "," : "", ASN1_STRING_length(g->d.iPAddress));
    }
    GENERAL_NAMES_free(names);
}

static void generated(void **state)
{
    X509 *ca = pem_cert(bundle.ca_cert_pem), *x = pem_cert(bundle.cert_pem);
    struct ts_buf sans = TS_BUF_INIT;
    struct ts_err err = {0};
    ts_time nb, na;

    (void)state;
    sans_of(x, &sans);
    assert_string_equal(sans.ptr, "DNS:turnstile-webhook-service.turnstile-system.svc,"
                                  "DNS:turnstile-webhook-service.turnstile-system.svc.cluster."
                                  "local,DNS:localhost,IP:4,IP:16");
    /* the CA signs the serving certificate; the CA is a CA, the leaf is not */
    assert_int_equal(X509_verify(x, X509_get0_pubkey(ca)), 1);
    assert_int_equal(X509_check_ca(ca), 1);
    assert_int_equal(X509_check_ca(x), 0);
    assert_int_equal(X509_check_purpose(x, X509_PURPOSE_SSL_SERVER, 0), 1);
    assert_int_equal(ts_httpd_cert_check_pair(bundle.cert_pem, bundle.key_pem, &err), 0);
    assert_int_equal(ts_httpd_cert_check_pair(bundle.ca_cert_pem, bundle.ca_key_pem, &err), 0);
    assert_int_equal(ts_httpd_cert_check_pair(bundle.cert_pem, bundle.ca_key_pem, &err), TS_ETLS);
    assert_int_equal(ts_httpd_cert_check_pair("junk", bundle.key_pem, &err), TS_EPARSE);
    /* validity: backdated one hour, one year (CA ten years) */
    assert_int_equal(ts_httpd_cert_validity(bundle.cert_pem, &nb, &na, &err), 0);
    assert_true(nb == NOW - 3600 * TS_TIME_SECOND);
    assert_true(na == NOW + 365 * DAY);
    assert_int_equal(ts_httpd_cert_validity(bundle.ca_cert_pem, &nb, &na, &err), 0);
    assert_true(na == NOW + 3650 * DAY);
    assert_int_equal(ts_httpd_cert_validity("nope", &nb, &na, &err), TS_EPARSE);
    ts_buf_release(&sans);
    X509_free(ca);
    X509_free(x);
}

static void verify(void **state)
{
    static const struct {
        const char *host;
        int64_t at_days;
        int want;
    } cases[] = {
        {"turnstile-webhook-service.turnstile-system.svc", 0, 0},
        {"turnstile-webhook-service.turnstile-system.svc.cluster.local", 100, 0},
        {"127.0.0.1", 0, 0},
        {"::1", 0, 0},
        {"localhost", 0, 0},
        {NULL, 364, 0},
        {"10.0.0.1", 0, TS_ETLS},
        {"other.turnstile-system.svc", 0, TS_ETLS},
        {NULL, 366, TS_ETLS}, /* expired */
        {NULL, -1, TS_ETLS},  /* not yet valid */
    };
    struct ts_httpd_cert_bundle other;
    struct ts_httpd_cert_options o;
    struct ts_err err = {0};

    (void)state;
    for (size_t i = 0; i < N_ELEMS(cases); i++) {
        int rc = ts_httpd_cert_verify(bundle.ca_cert_pem, bundle.cert_pem, cases[i].host,
                                      NOW + cases[i].at_days * DAY, &err);

        if (rc != cases[i].want)
            fail_msg("case %zu (%s): %d %s", i, cases[i].host ? cases[i].host : "-", rc, err.msg);
    }
    ts_httpd_cert_options_init(&o, SERVICE, NAMESPACE);
    ts_httpd_cert_bundle_init(&other);
    assert_int_equal(ts_httpd_cert_generate(&o, NOW, &other, &err), 0);
    /* another CA does not vouch for this certificate */
    assert_int_equal(ts_httpd_cert_verify(other.ca_cert_pem, bundle.cert_pem, NULL, NOW, &err),
                     TS_ETLS);
    ts_httpd_cert_bundle_release(&other);
    o.ips[0] = "not-an-ip";
    assert_int_equal(ts_httpd_cert_generate(&o, NOW, &other, &err), TS_EINVAL);
    assert_null(other.cert_pem);
}

static void rotation(void **state)
{
    static const struct {
        int64_t at_days;
        int want;
    } cases[] = {
        {0, 0}, {200, 0}, {274, 0}, {275, 1}, {300, 1}, {365, 1}, {400, 1}, {-1, 1},
    };
    struct ts_httpd_cert_options o;
    struct ts_httpd_cert_bundle b;
    struct ts_err err = {0};
    ts_time nb, na;

    (void)state;
    for (size_t i = 0; i < N_ELEMS(cases); i++) {
        int due = ts_httpd_cert_rotation_due(&bundle, NOW + cases[i].at_days * DAY,
                                             TS_HTTPD_CERT_LOOKAHEAD);

        if (due != cases[i].want)
            fail_msg("day %lld: due %d", (long long)cases[i].at_days, due);
    }
    ts_httpd_cert_bundle_init(&b);
    assert_int_equal(ts_httpd_cert_rotation_due(&b, NOW, TS_HTTPD_CERT_LOOKAHEAD), 1);
    /* rotating the leaf keeps the CA */
    b.ca_cert_pem = ts_xstrdup(bundle.ca_cert_pem);
    b.ca_key_pem = ts_xstrdup(bundle.ca_key_pem);
    ts_httpd_cert_options_init(&o, SERVICE, NAMESPACE);
    assert_int_equal(ts_httpd_cert_rotate(&o, NOW + 300 * DAY, &b, &err), 0);
    assert_string_equal(b.ca_cert_pem, bundle.ca_cert_pem);
    assert_int_equal(
        ts_httpd_cert_verify(b.ca_cert_pem, b.cert_pem, "127.0.0.1", NOW + 600 * DAY, &err), 0);
    assert_int_equal(ts_httpd_cert_rotation_due(&b, NOW + 300 * DAY, TS_HTTPD_CERT_LOOKAHEAD), 0);
    /* a CA near its end is replaced too */
    assert_int_equal(ts_httpd_cert_rotate(&o, NOW + 3600 * DAY, &b, &err), 0);
    assert_string_not_equal(b.ca_cert_pem, bundle.ca_cert_pem);
    assert_int_equal(ts_httpd_cert_validity(b.ca_cert_pem, &nb, &na, &err), 0);
    assert_true(na == NOW + 7250 * DAY);
    ts_httpd_cert_bundle_release(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(generated),
        cmocka_unit_test(verify),
        cmocka_unit_test(rotation),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
