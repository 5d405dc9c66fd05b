/*
 * cert.c - CA and serving certificate generation, rotation and checks
 * with OpenSSL 3 (EVP_EC_gen, X509v3 extensions through X509V3_EXT_conf_nid).
 */
#include "httpd/cert.h"

#include <openssl/asn1.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/alloc.h"
#include "util/buf.h"

#define CA_NAME    "turnstile-ca"
#define BACKDATE_S 3600

void ts_httpd_cert_options_init(struct ts_httpd_cert_options *o, const char *service,
                                const char *namespace_)
{
    memset(o, 0, sizeof(*o));
    o->service = service;
    o->namespace_ = namespace_;
    o->ips[0] = "127.0.0.1";
    o->ca_validity_s = TS_HTTPD_CERT_CA_VALIDITY;
    o->cert_validity_s = TS_HTTPD_CERT_VALIDITY;
}

void ts_httpd_cert_bundle_init(struct ts_httpd_cert_bundle *b)
{
    memset(b, 0, sizeof(*b));
}

static void free_secret(char *s)
{
    if (s)
        OPENSSL_cleanse(s, strlen(s));
    free(s);
}

void ts_httpd_cert_bundle_release(struct ts_httpd_cert_bundle *b)
{
    free(b->ca_cert_pem);
    free_secret(b->ca_key_pem);
    free(b->cert_pem);
    free_secret(b->key_pem);
    ts_httpd_cert_bundle_init(b);
}

/* The first OpenSSL error's reason, for messages (static text). */
static const char *ossl_msg(void)
{
    unsigned long e = ERR_get_error();
    const char *r = e ? ERR_reason_error_string(e) : NULL;

    ERR_clear_error();
    return r ? r : "unknown OpenSSL error";
}

static char *bio_take(BIO *b)
{
    char *data = NULL;
    long n = BIO_get_mem_data(b, &data);
    char *out = ts_xstrndup(data ? data : "", (size_t)(n > 0 ? n : 0));

    BIO_free(b);
    return out;
}

static char *key_pem(EVP_PKEY *k)
{
    BIO *b = BIO_new(BIO_s_mem());

    PEM_write_bio_PrivateKey(b, k, NULL, NULL, 0, NULL, NULL);
    return bio_take(b);
}

static char *cert_pem(X509 *x)
{
    BIO *b = BIO_new(BIO_s_mem());

    PEM_write_bio_X509(b, x);
    return bio_take(b);
}

static X509 *parse_cert(const char *pem)
{
    BIO *b;
    X509 *x;

    if (!pem)
        return NULL;
    b = BIO_new_mem_buf(pem, -1);
    x = PEM_read_bio_X509(b, NULL, NULL, NULL);
    BIO_free(b);
    return x;
}

static EVP_PKEY *parse_key(const char *pem)
{
    BIO *b;
    EVP_PKEY *k;

    if (!pem)
        return NULL;
    b = BIO_new_mem_buf(pem, -1);
    k = PEM_read_bio_PrivateKey(b, NULL, NULL, NULL);
    BIO_free(b);
    return k;
}

static int add_ext(X509 *cert, X509 *issuer, int nid, const char *value)
{
    X509V3_CTX ctx;
    X509_EXTENSION *ext;

    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, issuer, cert, NULL, NULL, 0);
    if (!(ext = X509V3_EXT_conf_nid(NULL, &ctx, nid, value)))
        return -1;
    X509_add_ext(cert, ext, -1);
    X509_EXTENSION_free(ext);
    return 0;
}

static int random_serial(X509 *x)
{
    BIGNUM *bn = BN_new();
    int ok = bn && BN_rand(bn, 127, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) &&
             BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(x));

    BN_free(bn);
    return ok ? 0 : -1;
}

/* A certificate for `key` named `cn`, valid [now - 1h, now + validity]. */
static X509 *new_cert(EVP_PKEY *key, const char *cn, ts_time now, int64_t validity_s)
{
    X509 *x = X509_new();
    time_t start = (time_t)(now / TS_TIME_SECOND);

    if (!x || !X509_set_version(x, 2) || random_serial(x) ||
        !ASN1_TIME_adj(X509_getm_notBefore(x), start, 0, -BACKDATE_S) ||
        !ASN1_TIME_adj(X509_getm_notAfter(x), start, (int)(validity_s / TS_HTTPD_CERT_DAY),
                       (long)(validity_s % TS_HTTPD_CERT_DAY)) ||
        !X509_set_pubkey(x, key) ||
        !X509_NAME_add_entry_by_txt(X509_get_subject_name(x), "CN", MBSTRING_ASC,
                                    (const unsigned char *)cn, -1, -1, 0)) {
        X509_free(x);
        return NULL;
    }
    return x;
}

static X509 *make_ca(EVP_PKEY *key, ts_time now, int64_t validity_s)
{
    X509 *x = new_cert(key, CA_NAME, now, validity_s);

    if (!x || !X509_set_issuer_name(x, X509_get_subject_name(x)) ||
        add_ext(x, x, NID_basic_constraints, "critical,CA:TRUE") ||
        add_ext(x, x, NID_key_usage, "critical,keyCertSign,cRLSign,digitalSignature") ||
        add_ext(x, x, NID_subject_key_identifier, "hash") || !X509_sign(x, key, EVP_sha256())) {
        X509_free(x);
        return NULL;
    }
    return x;
}

/* "DNS:a,DNS:b,IP:127.0.0.1" for the options; TS_EINVAL for a bad IP. */
static int san_list(const struct ts_httpd_cert_options *o, struct ts_buf *out, struct ts_err *err)
{
    unsigned char addr[16];

    ts_buf_addf(out, "DNS:%s.%s.svc,DNS:%s.%s.svc.cluster.local", o->service, o->namespace_,
                o->service, o->namespace_);
    for (size_t i = 0; i < TS_HTTPD_CERT_MAX_NAMES && o->extra_dns[i]; i++)
        ts_buf_addf(out, ",DNS:%s", o->extra_dns[i]);
    for (size_t i = 0; i < TS_HTTPD_CERT_MAX_NAMES && o->ips[i]; i++) {
        if (inet_pton(AF_INET, o->ips[i], addr) != 1 && inet_pton(AF_INET6, o->ips[i], addr) != 1)
            return ts_err_set(err, TS_EINVAL, "invalid IP address '%s'", o->ips[i]);
        ts_buf_addf(out, ",IP:%s", o->ips[i]);
    }
    return 0;
}

static X509 *make_serving(const struct ts_httpd_cert_options *o, EVP_PKEY *key, X509 *ca,
                          EVP_PKEY *ca_key, ts_time now, const char *sans)
{
    char cn[300];
    X509 *x;

    snprintf(cn, sizeof(cn), "%s.%s.svc", o->service, o->namespace_);
    x = new_cert(key, cn, now, o->cert_validity_s);
    if (!x || !X509_set_issuer_name(x, X509_get_subject_name(ca)) ||
        add_ext(x, ca, NID_basic_constraints, "critical,CA:FALSE") ||
        add_ext(x, ca, NID_key_usage, "critical,digitalSignature,keyEncipherment") ||
        add_ext(x, ca, NID_ext_key_usage, "serverAuth") ||
        add_ext(x, ca, NID_authority_key_identifier, "keyid:always") ||
        add_ext(x, ca, NID_subject_alt_name, sans) || !X509_sign(x, ca_key, EVP_sha256())) {
        X509_free(x);
        return NULL;
    }
    return x;
}

/* Issues a serving key + certificate signed by (ca, ca_key) into b. */
static int issue(const struct ts_httpd_cert_options *o, X509 *ca, EVP_PKEY *ca_key, ts_time now,
                 struct ts_httpd_cert_bundle *b, struct ts_err *err)
{
    struct ts_buf sans = TS_BUF_INIT;
    EVP_PKEY *key = NULL;
    X509 *x = NULL;
    int rc = san_list(o, &sans, err);

    if (!rc && !(key = EVP_EC_gen("P-256")))
        rc = ts_err_set(err, TS_ETLS, "generate serving key: %s", ossl_msg());
    if (!rc && !(x = make_serving(o, key, ca, ca_key, now, sans.ptr)))
        rc = ts_err_set(err, TS_ETLS, "sign serving certificate: %s", ossl_msg());
    if (!rc) {
        free(b->cert_pem);
        free_secret(b->key_pem);
        b->cert_pem = cert_pem(x);
        b->key_pem = key_pem(key);
    }
    X509_free(x);
    EVP_PKEY_free(key);
    ts_buf_release(&sans);
    return rc;
}

int ts_httpd_cert_generate(const struct ts_httpd_cert_options *o, ts_time now,
                           struct ts_httpd_cert_bundle *out, struct ts_err *err)
{
    struct ts_httpd_cert_bundle b;
    EVP_PKEY *ca_key = EVP_EC_gen("P-256");
    X509 *ca = ca_key ? make_ca(ca_key, now, o->ca_validity_s) : NULL;
    int rc = 0;

    ts_httpd_cert_bundle_init(&b);
    if (!ca)
        rc = ts_err_set(err, TS_ETLS, "generate CA: %s", ossl_msg());
    if (!rc)
        rc = issue(o, ca, ca_key, now, &b, err);
    if (!rc) {
        b.ca_cert_pem = cert_pem(ca);
        b.ca_key_pem = key_pem(ca_key);
        ts_httpd_cert_bundle_release(out);
        *out = b;
    } else {
        ts_httpd_cert_bundle_release(&b);
    }
    X509_free(ca);
    EVP_PKEY_free(ca_key);
    return rc;
}

static int due_one(const char *pem, ts_time now, int64_t lookahead_s)
{
    ts_time nb, na;

    if (ts_httpd_cert_validity(pem, &nb, &na, NULL) != 0)
        return 1;
    return now < nb || now + lookahead_s * TS_TIME_SECOND >= na;
}

int ts_httpd_cert_rotation_due(const struct ts_httpd_cert_bundle *b, ts_time now,
                               int64_t lookahead_s)
{
    if (!b->ca_cert_pem || !b->cert_pem || !b->key_pem)
        return 1;
    return due_one(b->cert_pem, now, lookahead_s) || due_one(b->ca_cert_pem, now, lookahead_s);
}

int ts_httpd_cert_rotate(const struct ts_httpd_cert_options *o, ts_time now,
                         struct ts_httpd_cert_bundle *b, struct ts_err *err)
{
    X509 *ca;
    EVP_PKEY *ca_key;
    int rc;

    if (!b->ca_key_pem || due_one(b->ca_cert_pem, now, TS_HTTPD_CERT_LOOKAHEAD))
        return ts_httpd_cert_generate(o, now, b, err);
    ca = parse_cert(b->ca_cert_pem);
    ca_key = parse_key(b->ca_key_pem);
    if (ca && ca_key && X509_check_private_key(ca, ca_key) == 1)
        rc = issue(o, ca, ca_key, now, b, err);
    else
        rc = ts_httpd_cert_generate(o, now, b, err);
    X509_free(ca);
    EVP_PKEY_free(ca_key);
    ERR_clear_error();
    return rc;
}

static int asn1_to_time(const ASN1_TIME *t, ts_time *out)
{
    struct tm tm;

    if (!t || ASN1_TIME_to_tm(t, &tm) != 1)
        return -1;
    *out = (ts_time)timegm(&tm) * TS_TIME_SECOND;
    return 0;
}

int ts_httpd_cert_validity(const char *cert_pem, ts_time *not_before, ts_time *not_after,
                           struct ts_err *err)
{
    X509 *x = parse_cert(cert_pem);
    int rc = 0;

    if (!x || asn1_to_time(X509_get0_notBefore(x), not_before) ||
        asn1_to_time(X509_get0_notAfter(x), not_after))
        rc = ts_err_set(err, TS_EPARSE, "cannot read certificate validity");
    X509_free(x);
    ERR_clear_error();
    return rc;
}

int ts_httpd_cert_check_pair(const char *cert_pem, const char *key_pem, struct ts_err *err)
{
    X509 *x = parse_cert(cert_pem);
    EVP_PKEY *k = parse_key(key_pem);
    int rc = 0;

    if (!x)
        rc = ts_err_set(err, TS_EPARSE, "certificate does not parse as PEM");
    else if (!k)
        rc = ts_err_set(err, TS_EPARSE, "private key does not parse as PEM");
    else if (X509_check_private_key(x, k) != 1)
        rc = ts_err_set(err, TS_ETLS, "private key does not match the certificate");
    X509_free(x);
    EVP_PKEY_free(k);
    ERR_clear_error();
    return rc;
}

static int check_host(X509 *x, const char *host)
{
    unsigned char addr[16];

    if (inet_pton(AF_INET, host, addr) == 1 || inet_pton(AF_INET6, host, addr) == 1)
        return X509_check_ip_asc(x, host, 0) == 1;
    return X509_check_host(x, host, 0, 0, NULL) == 1;
}

static int verify_chain(X509 *ca, X509 *x, ts_time now, struct ts_err *err)
{
    X509_STORE *store = X509_STORE_new();
    X509_STORE_CTX *ctx = X509_STORE_CTX_new();
    int rc = 0;

    X509_STORE_add_cert(store, ca);
    X509_STORE_CTX_init(ctx, store, x, NULL);
    X509_STORE_CTX_set_time(ctx, 0, (time_t)(now / TS_TIME_SECOND));
    if (X509_verify_cert(ctx) != 1)
        rc = ts_err_set(err, TS_ETLS, "certificate verify failed: %s",
                        X509_verify_cert_error_string(X509_STORE_CTX_get_error(ctx)));
    X509_STORE_CTX_free(ctx);
    X509_STORE_free(store);
    return rc;
}

int ts_httpd_cert_verify(const char *ca_pem, const char *cert_pem, const char *host, ts_time now,
                         struct ts_err *err)
{
    X509 *ca = parse_cert(ca_pem);
    X509 *x = parse_cert(cert_pem);
    int rc = 0;

    if (!ca || !x)
        rc = ts_err_set(err, TS_EPARSE, "%s does not parse as PEM", ca ? "certificate" : "CA");
    if (!rc)
        rc = verify_chain(ca, x, now, err);
    if (!rc && host && !check_host(x, host))
        rc = ts_err_set(err, TS_ETLS, "certificate is not valid for '%s'", host);
    X509_free(ca);
    X509_free(x);
    ERR_clear_error();
    return rc;
}
