/*
 * cel_lex.c - CEL tokens: identifiers, keywords, numbers, the four string
 * quotings (with raw strings and CEL's escapes, decoded to UTF-8),
 * operators and // comments.
 */
#include "api/cel_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"

static void error(struct cel_token *tok, const char *msg)
{
    tok->kind = CT_ERR;
    tok->text = ts_xstrdup(msg);
    tok->len = strlen(msg);
}

static int is_ident_start(char c)
{
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static int hexval(char c)
{
    if (is_digit(c))
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static void skip_space(struct cel_lexer *lx)
{
    for (;;) {
        char c = lx->src[lx->pos];

        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
            lx->pos++;
        } else if (c == '/' && lx->src[lx->pos + 1] == '/') {
            while (lx->src[lx->pos] && lx->src[lx->pos] != '\n')
                lx->pos++;
        } else {
            return;
        }
    }
}

static void put_utf8(struct ts_buf *b, uint32_t cp)
{
    if (cp < 0x80) {
        ts_buf_addc(b, (char)cp);
    } else if (cp < 0x800) {
        ts_buf_addc(b, (char)(0xC0 | (cp >> 6)));
        ts_buf_addc(b, (char)(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
        ts_buf_addc(b, (char)(0xE0 | (cp >> 12)));
        ts_buf_addc(b, (char)(0x80 | ((cp >> 6) & 0x3F)));
        ts_buf_addc(b, (char)(0x80 | (cp & 0x3F)));
    } else {
        ts_buf_addc(b, (char)(0xF0 | (cp >> 18)));
        ts_buf_addc(b, (char)(0x80 | ((cp >> 12) & 0x3F)));
        ts_buf_addc(b, (char)(0x80 | ((cp >> 6) & 0x3F)));
        ts_buf_addc(b, (char)(0x80 | (cp & 0x3F)));
    }
}

/* Decodes the escape at s (just past the backslash) into b; returns the
 * number of source bytes used, 0 when the escape is invalid. */
static size_t escape(const char *s, struct ts_buf *b)
{
    static const char simple[] = "a\ab\bf\fn\nr\rt\tv\v\\\\''\"\"``??";
    uint32_t cp = 0;
    size_t n = 0, i;

    for (i = 0; simple[i]; i += 2)
        if (s[0] == simple[i]) {
            ts_buf_addc(b, simple[i + 1]);
            return 1;
        }
    if (s[0] == 'x' || s[0] == 'X')
        n = 2;
    else if (s[0] == 'u')
        n = 4;
    else if (s[0] == 'U')
        n = 8;
    if (n) {
        for (i = 1; i <= n; i++) {
            int h = hexval(s[i]);

            if (h < 0)
                return 0;
            cp = cp * 16 + (uint32_t)h;
        }
        if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return 0;
        if (n == 2)
            ts_buf_addc(b, (char)cp); /* \x is a byte in CEL */
        else
            put_utf8(b, cp);
        return n + 1;
    }
    if (s[0] >= '0' && s[0] <= '3' && s[1] >= '0' && s[1] <= '7' && s[2] >= '0' && s[2] <= '7') {
        ts_buf_addc(b, (char)((s[0] - '0') * 64 + (s[1] - '0') * 8 + (s[2] - '0')));
        return 3;
    }
    return 0;
}

static void lex_string(struct cel_lexer *lx, struct cel_token *tok, int raw)
{
    const char *s = lx->src;
    char q = s[lx->pos];
    int triple = s[lx->pos + 1] == q && s[lx->pos + 2] == q;
    struct ts_buf b = TS_BUF_INIT;

    lx->pos += triple ? 3 : 1;
    for (;;) {
        char c = s[lx->pos];

        if (!c || (!triple && (c == '\n' || c == '\r'))) {
            ts_buf_release(&b);
            error(tok, "unterminated string literal");
            return;
        }
        if (c == q && (!triple || (s[lx->pos + 1] == q && s[lx->pos + 2] == q))) {
            lx->pos += triple ? 3 : 1;
            break;
        }
        if (c == '\\' && !raw) {
            size_t used = escape(s + lx->pos + 1, &b);

            if (!used) {
                ts_buf_release(&b);
                error(tok, "invalid escape sequence in string literal");
                return;
            }
            lx->pos += 1 + used;
            continue;
        }
        if (c == '\\' && raw && s[lx->pos + 1] == q) {
            /* a raw string still cannot end at an escaped quote */
            ts_buf_addc(&b, c);
            ts_buf_addc(&b, q);
            lx->pos += 2;
            continue;
        }
        ts_buf_addc(&b, c);
        lx->pos++;
    }
    tok->kind = CT_STRING;
    tok->len = b.len;
    tok->text = b.ptr ? ts_buf_take(&b) : ts_xstrdup("");
}

static void lex_number(struct cel_lexer *lx, struct cel_token *tok)
{
    const char *s = lx->src + lx->pos, *p = s;
    char *end;
    int is_double = 0, hex = p[0] == '0' && (p[1] == 'x' || p[1] == 'X');

    if (hex) {
        p += 2;
        if (hexval(*p) < 0) {
            error(tok, "invalid hex literal");
            return;
        }
        while (hexval(*p) >= 0)
            p++;
    } else {
        while (is_digit(*p))
            p++;
        if (p[0] == '.' && is_digit(p[1])) {
            is_double = 1;
            for (p++; is_digit(*p); p++)
                ;
        }
        if ((p[0] == 'e' || p[0] == 'E') &&
            (is_digit(p[1]) || ((p[1] == '+' || p[1] == '-') && is_digit(p[2])))) {
            is_double = 1;
            for (p += 2; is_digit(*p); p++)
                ;
        }
    }
    errno = 0;
    if (is_double) {
        tok->kind = CT_DOUBLE;
        tok->d = strtod(s, &end);
    } else {
        tok->kind = CT_INT;
        /* decimal even with leading zeros: CEL has no octal literals */
        tok->u = hex ? strtoull(s + 2, &end, 16) : strtoull(s, &end, 10);
        if (errno == ERANGE) {
            error(tok, "invalid int literal");
            return;
        }
        if (*p == 'u' || *p == 'U') {
            tok->kind = CT_UINT;
            p++;
        }
    }
    if (is_ident_start(*p) || is_digit(*p)) {
        error(tok, "invalid number literal");
        return;
    }
    lx->pos += (size_t)(p - s);
}

static const struct {
    const char *text;
    enum cel_tok kind;
} ops[] = {
    {"&&", CT_AND},     {"||", CT_OR},      {"==", CT_EQ},      {"!=", CT_NE},     {"<=", CT_LE},
    {">=", CT_GE},      {"<", CT_LT},       {">", CT_GT},       {"(", CT_LPAREN},  {")", CT_RPAREN},
    {"[", CT_LBRACKET}, {"]", CT_RBRACKET}, {"{", CT_LBRACE},   {"}", CT_RBRACE},  {".", CT_DOT},
    {",", CT_COMMA},    {":", CT_COLON},    {"?", CT_QUESTION}, {"!", CT_NOT},     {"-", CT_MINUS},
    {"+", CT_PLUS},     {"*", CT_STAR},     {"/", CT_SLASH},    {"%", CT_PERCENT},
};

void ts__cel_lex_next(struct cel_lexer *lx, struct cel_token *tok)
{
    const char *s;
    size_t i;

    memset(tok, 0, sizeof(*tok));
    skip_space(lx);
    tok->pos = lx->pos;
    s = lx->src + lx->pos;
    if (!*s) {
        tok->kind = CT_EOF;
        return;
    }
    if ((s[0] == 'r' || s[0] == 'R') && (s[1] == '\'' || s[1] == '"')) {
        lx->pos++;
        lex_string(lx, tok, 1);
        return;
    }
    if ((s[0] == 'b' || s[0] == 'B') && (s[1] == '\'' || s[1] == '"')) {
        error(tok, "bytes literals are not supported");
        return;
    }
    if (s[0] == '\'' || s[0] == '"') {
        lex_string(lx, tok, 0);
        return;
    }
    if (is_digit(s[0]) || (s[0] == '.' && is_digit(s[1]))) {
        lex_number(lx, tok);
        return;
    }
    if (is_ident_start(s[0])) {
        size_t n = 1;

        while (is_ident_start(s[n]) || is_digit(s[n]))
            n++;
        lx->pos += n;
        if (n == 4 && !memcmp(s, "true", 4))
            tok->kind = CT_TRUE;
        else if (n == 5 && !memcmp(s, "false", 5))
            tok->kind = CT_FALSE;
        else if (n == 4 && !memcmp(s, "null", 4))
            tok->kind = CT_NULL;
        else if (n == 2 && !memcmp(s, "in", 2))
            tok->kind = CT_IN;
        else {
            tok->kind = CT_IDENT;
            tok->text = ts_xstrndup(s, n);
            tok->len = n;
        }
        return;
    }
    for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
        size_t n = strlen(ops[i].text);

        if (!strncmp(s, ops[i].text, n)) {
            lx->pos += n;
            tok->kind = ops[i].kind;
            return;
        }
    }
    {
        char msg[64];

        snprintf(msg, sizeof(msg), "unexpected character '%c'", s[0]);
        error(tok, msg);
    }
}
