/*
 * replay.c - runs one fuzz target without clang: over every file of its
 * corpus (test/fuzz/corpus/<target>/, the seeds and every crash the
 * fuzzer found), then over seeded random mutations of them.  Linked with
 * one fuzz_<target>.o into test_fuzz_replay_<target>, it is part of
 * `make test`, `make asan` and `make valgrind`.
 *
 *   test_fuzz_replay_<target>            corpus + mutations (cmocka)
 *   test_fuzz_replay_<target> FILE...    just these inputs (a crash file)
 *
 * TS_FUZZ_MUTATIONS (default 2000) and TS_FUZZ_SEED (default 1) set the
 * mutation run.  When an input crashes, a signal handler writes it to
 * fuzz-crash-<target> in the current directory before the process dies,
 * so it can be replayed and added to the corpus.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"

struct input {
    char *name;
    uint8_t *data;
    size_t size;
};

static char target[64];
static struct input *corpus;
static size_t ncorpus;

/* The input being run, for the crash handler. */
static const uint8_t *volatile cur_data;
static volatile size_t cur_size;
static char crash_path[96];

static void on_crash(int sig)
{
    int fd = open(crash_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

    if (fd >= 0) {
        ssize_t w = write(fd, (const void *)cur_data, cur_size);

        (void)w;
        close(fd);
        w = write(2, "fuzz replay: crashing input saved to ", 37);
        w = write(2, crash_path, strlen(crash_path));
        w = write(2, "\n", 1);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

static void run_one(const uint8_t *data, size_t size)
{
    cur_data = data;
    cur_size = size;
    LLVMFuzzerTestOneInput(data, size);
}

static int read_file(const char *path, struct input *in)
{
    FILE *f = fopen(path, "rb");
    size_t cap = 4096;

    if (!f)
        return -1;
    in->name = strdup(path);
    in->data = malloc(cap);
    in->size = 0;
    for (;;) {
        size_t n = fread(in->data + in->size, 1, cap - in->size, f);

        in->size += n;
        if (in->size < cap)
            break;
        cap *= 2;
        in->data = realloc(in->data, cap);
    }
    fclose(f);
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const struct input *)a)->name, ((const struct input *)b)->name);
}

static void load_corpus(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[512];

    if (!d)
        return;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        corpus = realloc(corpus, (ncorpus + 1) * sizeof(*corpus));
        if (read_file(path, &corpus[ncorpus]) == 0)
            ncorpus++;
    }
    closedir(d);
    qsort(corpus, ncorpus, sizeof(*corpus), by_name);
}

static void free_corpus(void)
{
    for (size_t i = 0; i < ncorpus; i++) {
        free(corpus[i].name);
        free(corpus[i].data);
    }
    free(corpus);
}

/* Every corpus file runs clean (seeds and past crashes alike). */
static void replay_corpus(void **state)
{
    (void)state;
    assert_true(ncorpus > 0);
    for (size_t i = 0; i < ncorpus; i++)
        run_one(corpus[i].data, corpus[i].size);
}

static uint64_t rng;

static size_t rnd(size_t n)
{
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return n ? (size_t)((rng >> 33) % n) : 0;
}

/* Bytes that break parsers: delimiters, signs, huge numbers, bad UTF-8. */
static const char *const tokens[] = {
    "\n",         "\r\n",        "\0",         "\"",
    "\\",         "{",           "}",          "[",
    "]",          ":",           ",",          "-",
    "+",          ".",           "e",          "Ki",
    "Ei",         "E",           "n",          "null",
    "true",       "0",           "-1",         "9223372036854775808",
    "1e400",      "\xff",        "\xc3",       "\xed\xa0\x80",
    "---\n",      "*a",          "&a ",        "<<: ",
    "!!binary ",  "~1",          "/",          "{\"a\":",
    "[[[[[[[[[[", "\"\\u0000\"", "apiVersion", "kind",
};

/* One random edit of buf[0..*len) (capacity cap). */
static void mutate_once(uint8_t *buf, size_t *len, size_t cap)
{
    size_t n = *len, at = rnd(n + 1), k;
    const char *t;

    switch (rnd(7)) {
    case 0: /* flip a byte */
        if (n)
            buf[rnd(n)] ^= (uint8_t)(1u << rnd(8));
        break;
    case 1: /* random byte */
        if (n)
            buf[rnd(n)] = (uint8_t)rnd(256);
        break;
    case 2: /* delete a range */
        k = rnd(n - at + 1);
        memmove(buf + at, buf + at + k, n - at - k);
        *len = n - k;
        break;
    case 3: /* insert a token */
        t = tokens[rnd(sizeof(tokens) / sizeof(tokens[0]))];
        k = strlen(t) ? strlen(t) : 1;
        if (n + k <= cap) {
            memmove(buf + at + k, buf + at, n - at);
            memcpy(buf + at, t, k);
            *len = n + k;
        }
        break;
    case 4: /* duplicate a range */
        k = rnd(n - at + 1);
        if (n + k <= cap) {
            memmove(buf + at + k, buf + at, n - at);
            *len = n + k;
        }
        break;
    case 5: /* truncate */
        *len = at;
        break;
    default: /* splice in part of another corpus entry */
    {
        const struct input *o = &corpus[rnd(ncorpus)];
        size_t from = rnd(o->size + 1);

        k = rnd(o->size - from + 1);
        if (n + k <= cap) {
            memmove(buf + at + k, buf + at, n - at);
            memcpy(buf + at, o->data + from, k);
            *len = n + k;
        }
    }
    }
}

/* Seeded random mutations of the corpus run clean. */
static void replay_mutations(void **state)
{
    const char *env = getenv("TS_FUZZ_MUTATIONS");
    long count = env ? strtol(env, NULL, 10) : 2000;
    const char *seed = getenv("TS_FUZZ_SEED");

    (void)state;
    assert_true(ncorpus > 0);
    rng = seed ? strtoull(seed, NULL, 10) : 1;
    for (long i = 0; i < count; i++) {
        const struct input *in = &corpus[rnd(ncorpus)];
        size_t cap = in->size * 2 + 64, len = in->size, edits = 1 + rnd(8);
        uint8_t *buf = malloc(cap), *exact;

        memcpy(buf, in->data, in->size);
        for (size_t e = 0; e < edits; e++)
            mutate_once(buf, &len, cap);
        /* an exact-size copy, so ASan sees reads past the end */
        exact = malloc(len ? len : 1);

        memcpy(exact, buf, len);
        run_one(exact, len);
        free(exact);
        free(buf);
    }
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(replay_corpus),
        cmocka_unit_test(replay_mutations),
    };
    const char *base = strrchr(argv[0], '/');
    const char *prefix = "test_fuzz_replay_";
    char dir[128];
    int rc;

    base = base ? base + 1 : argv[0];
    if (strncmp(base, prefix, strlen(prefix)) == 0)
        base += strlen(prefix);
    snprintf(target, sizeof(target), "%s", base);
    snprintf(crash_path, sizeof(crash_path), "fuzz-crash-%s", target);
    signal(SIGABRT, on_crash);
    signal(SIGSEGV, on_crash);
    signal(SIGBUS, on_crash);
    signal(SIGFPE, on_crash);
    if (argc > 1) { /* replay the given files only */
        for (int i = 1; i < argc; i++) {
            struct input in;

            if (read_file(argv[i], &in) != 0) {
                fprintf(stderr, "%s: cannot read %s\n", target, argv[i]);
                return 1;
            }
            run_one(in.data, in.size);
            printf("%s: %s ok\n", target, argv[i]);
            free(in.name);
            free(in.data);
        }
        return 0;
    }
    snprintf(dir, sizeof(dir), "test/fuzz/corpus/%s", target);
    load_corpus(dir);
    rc = cmocka_run_group_tests_name(target, tests, NULL, NULL);
    free_corpus();
    return rc;
}
