/* tool/animate/trace.c - reads TILEDBLAS_TRACE files (JSON Lines, one flat
 * object per intercepted call) back for `tiledblas animate --trace`. A small,
 * tolerant reader: strings, numbers, booleans and null; nested values are
 * skipped; unknown keys are ignored; a malformed line is skipped, not fatal. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L   /* getline, popen, mkstemp, setenv */
#endif
#include "animate.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct tb_json_val {
    enum { TB_J_STR, TB_J_NUM, TB_J_BOOL, TB_J_NULL, TB_J_OTHER } type;
    char str[200];
    double num;
} tb_json_val;

static const char *tb_skip_ws(const char *p)
{
    while (*p && isspace((unsigned char)*p))
        p++;
    return p;
}

/* A JSON string starting at the opening quote into out (truncated to fit);
 * returns the position after the closing quote, or NULL. */
static const char *tb_parse_string(const char *p, char *out, size_t outlen)
{
    size_t n = 0;
    if (*p != '"')
        return NULL;
    for (p++; *p && *p != '"'; p++) {
        char c = *p;
        if (c == '\\') {
            p++;
            switch (*p) {
            case 'n': c = '\n'; break;
            case 't': c = '\t'; break;
            case 'r': c = '\r'; break;
            case 'b': c = '\b'; break;
            case 'f': c = '\f'; break;
            case 'u': {                  /* keep ASCII, replace the rest */
                unsigned u = 0;
                for (int i = 1; i <= 4; i++) {
                    if (!isxdigit((unsigned char)p[i]))
                        return NULL;
                    u = u * 16 + (unsigned)(isdigit((unsigned char)p[i]) ? p[i] - '0'
                                            : tolower((unsigned char)p[i]) - 'a' + 10);
                }
                c = (u > 0 && u < 0x80) ? (char)u : '?';
                p += 4;
                break;
            }
            case '\0': return NULL;
            default: c = *p; break;      /* \" \\ \/ */
            }
        }
        if (n + 1 < outlen)
            out[n++] = c;
    }
    if (*p != '"')
        return NULL;
    if (outlen)
        out[n] = '\0';
    return p + 1;
}

/* Skips a nested object or array, strings included; returns the position
 * after it or NULL. */
static const char *tb_skip_nested(const char *p)
{
    int depth = 0;
    char tmp[2];
    for (; *p; ) {
        if (*p == '"') {
            p = tb_parse_string(p, tmp, sizeof tmp);
            if (!p)
                return NULL;
            continue;
        }
        if (*p == '{' || *p == '[')
            depth++;
        else if (*p == '}' || *p == ']')
            if (--depth == 0)
                return p + 1;
        p++;
    }
    return NULL;
}

static const char *tb_parse_value(const char *p, tb_json_val *v)
{
    v->str[0] = '\0';
    v->num = 0.0;
    if (*p == '"') {
        v->type = TB_J_STR;
        return tb_parse_string(p, v->str, sizeof v->str);
    }
    if (strncmp(p, "true", 4) == 0)  { v->type = TB_J_BOOL; v->num = 1; return p + 4; }
    if (strncmp(p, "false", 5) == 0) { v->type = TB_J_BOOL; v->num = 0; return p + 5; }
    if (strncmp(p, "null", 4) == 0)  { v->type = TB_J_NULL; return p + 4; }
    if (*p == '{' || *p == '[')      { v->type = TB_J_OTHER; return tb_skip_nested(p); }
    char *end;
    errno = 0;
    v->num = strtod(p, &end);
    if (end == p)
        return NULL;
    v->type = TB_J_NUM;
    return end;
}

/* CBLAS enums may be written as numbers: 101/102 layout, 111/112/113 trans. */
static void tb_set_trans(char *dst, const tb_json_val *v)
{
    if (v->type == TB_J_STR)
        snprintf(dst, 4, "%c", v->str[0] ? (char)toupper((unsigned char)v->str[0]) : 'N');
    else if (v->type == TB_J_NUM)
        snprintf(dst, 4, "%c", v->num == 112 ? 'T' : v->num == 113 ? 'C' : 'N');
    else if (v->type == TB_J_BOOL)
        snprintf(dst, 4, "%c", v->num != 0 ? 'T' : 'N');
}

static void tb_set_layout(char *dst, size_t len, const tb_json_val *v)
{
    int col = 0;
    if (v->type == TB_J_STR)
        col = tolower((unsigned char)v->str[0]) == 'c';
    else if (v->type == TB_J_NUM)
        col = v->num == 102;
    snprintf(dst, len, "%s", col ? "col-major" : "row-major");
}

static void tb_store(tb_trace_call *c, const char *key, const tb_json_val *v)
{
    double x = v->num;
    int num = v->type == TB_J_NUM || v->type == TB_J_BOOL;
#define TB_NUM(name, field, bit) \
    if (strcmp(key, name) == 0) { if (num) { c->field = x; c->have |= (bit); } return; }
#define TB_STR(name, field) \
    if (strcmp(key, name) == 0) { \
        if (v->type == TB_J_STR) snprintf(c->field, sizeof c->field, "%s", v->str); \
        else if (num) snprintf(c->field, sizeof c->field, "%g", x); \
        return; }
    TB_NUM("t", t, 0)
    TB_NUM("thread", thread, 0)
    TB_NUM("m", m, TB_TR_M)
    TB_NUM("n", n, TB_TR_N)
    TB_NUM("k", k, TB_TR_K)
    TB_NUM("lda", lda, TB_TR_LD)
    TB_NUM("ldb", ldb, TB_TR_LD)
    TB_NUM("ldc", ldc, TB_TR_LD)
    TB_NUM("alpha", alpha, 0)
    TB_NUM("beta", beta, 0)
    TB_NUM("seconds", seconds, TB_TR_SECONDS)
    TB_NUM("h2d_s", h2d_s, TB_TR_TIMES)
    TB_NUM("kernel_s", kernel_s, TB_TR_TIMES)
    TB_NUM("d2h_s", d2h_s, TB_TR_TIMES)
    TB_NUM("bytes_h2d", bytes_h2d, TB_TR_BYTES)
    TB_NUM("bytes_d2h", bytes_d2h, TB_TR_BYTES)
    TB_STR("api", api)
    TB_STR("reason", reason)
    TB_STR("kernel", kernel)
#undef TB_NUM
#undef TB_STR
    if (strcmp(key, "transa") == 0) tb_set_trans(c->transa, v);
    else if (strcmp(key, "transb") == 0) tb_set_trans(c->transb, v);
    else if (strcmp(key, "layout") == 0) tb_set_layout(c->layout, sizeof c->layout, v);
    else if (strcmp(key, "route") == 0 && v->type == TB_J_STR) {
        snprintf(c->route, sizeof c->route, "%s", v->str);
        for (char *q = c->route; *q; q++)
            *q = (char)tolower((unsigned char)*q);
        c->have |= TB_TR_ROUTE;
    }
}

int tb_trace_parse_line(const char *line, tb_trace_call *out)
{
    tb_trace_call c;
    memset(&c, 0, sizeof c);
    strcpy(c.layout, "row-major");
    strcpy(c.transa, "N");
    strcpy(c.transb, "N");
    const char *p = tb_skip_ws(line);
    if (*p != '{')
        return -1;
    p = tb_skip_ws(p + 1);
    if (*p == '}')
        return -1;                       /* an empty object is not a call */
    for (;;) {
        char key[64];
        tb_json_val v;
        p = tb_parse_string(p, key, sizeof key);
        if (!p)
            return -1;
        p = tb_skip_ws(p);
        if (*p++ != ':')
            return -1;
        p = tb_parse_value(tb_skip_ws(p), &v);
        if (!p)
            return -1;
        tb_store(&c, key, &v);
        p = tb_skip_ws(p);
        if (*p == '}')
            break;
        if (*p++ != ',')
            return -1;
        p = tb_skip_ws(p);
    }
    if (!(c.have & TB_TR_M) || !(c.have & TB_TR_N) || !(c.have & TB_TR_K))
        return -1;                       /* not a GEMM call record */
    if (!(c.have & TB_TR_ROUTE))
        strcpy(c.route, "cpu");
    *out = c;
    return 0;
}

int tb_trace_read(const char *path, int which, tb_trace_call *out,
                  int *skipped, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "cannot open trace %s: %s", path, strerror(errno));
        return -1;
    }
    char *line = NULL;
    size_t cap = 0;
    int count = 0, found = 0;
    tb_trace_call first;
    *skipped = 0;
    while (getline(&line, &cap, f) >= 0) {
        tb_trace_call c;
        if (*tb_skip_ws(line) == '\0')
            continue;
        if (tb_trace_parse_line(line, &c) != 0) {
            (*skipped)++;
            continue;
        }
        c.index = ++count;
        if (count == 1)
            first = c;
        if ((which > 0 && count == which) || (which == 0 && strcmp(c.route, "gpu") == 0)) {
            *out = c;
            found = 1;
            break;
        }
    }
    free(line);
    fclose(f);
    if (found)
        return 0;
    if (which == 0 && count > 0) {
        *out = first;
        return 0;
    }
    if (count == 0)
        snprintf(err, errlen, "trace %s holds no sgemm calls (%d lines skipped)", path, *skipped);
    else
        snprintf(err, errlen, "trace %s holds %d calls; there is no call %d", path, count, which);
    return -1;
}
