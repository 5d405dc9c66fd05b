/*
 * b64.c - standard base64 (RFC 4648 with padding) for kubeconfig data
 * fields and list continue tokens.
 */
#include "apiserver/b64.h"

#include <string.h>

#include "util/err.h"

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void ts_b64_encode(const void *data, size_t len, struct ts_buf *out)
{
    const unsigned char *p = data;

    for (size_t i = 0; i < len; i += 3) {
        unsigned v = (unsigned)p[i] << 16;
        size_t n = len - i < 3 ? len - i : 3;

        if (n > 1)
            v |= (unsigned)p[i + 1] << 8;
        if (n > 2)
            v |= p[i + 2];
        ts_buf_addc(out, alphabet[(v >> 18) & 63]);
        ts_buf_addc(out, alphabet[(v >> 12) & 63]);
        ts_buf_addc(out, n > 1 ? alphabet[(v >> 6) & 63] : '=');
        ts_buf_addc(out, n > 2 ? alphabet[v & 63] : '=');
    }
}

static int value(char c)
{
    const char *p = c ? strchr(alphabet, c) : NULL;

    return p ? (int)(p - alphabet) : -1;
}

int ts_b64_decode(const char *s, struct ts_buf *out)
{
    size_t len = strlen(s);
    unsigned acc = 0;
    int bits = 0;

    while (len && s[len - 1] == '=')
        len--;
    for (size_t i = 0; i < len; i++) {
        int v = value(s[i]);

        if (v < 0)
            return TS_EINVAL;
        acc = (acc << 6) | (unsigned)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            ts_buf_addc(out, (char)((acc >> bits) & 0xff));
        }
    }
    return 0;
}
