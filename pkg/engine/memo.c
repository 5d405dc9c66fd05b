#include "engine/memo.h"

#include "util/alloc.h"

#include <stdlib.h>
#include <string.h>

/* A queue's head is searched by the oracle (nothing held back yet) and by
 * the cycle (after the preemptors before it held quota back): two keys per
 * head, and a head that cannot preempt may alternate with another. */
#define SLOTS 4

struct slot {
    int used;
    uint64_t gen, config_seq, resv_sig;
    int32_t priority;
    ts_time queue_ts;
    size_t n;
    size_t *fr;
    int64_t *need;
    size_t nt;
    struct ts__eng_target *t; /* the holders named stay while gen does */
    int cross;
};

struct ts__eng_memo {
    struct slot slot[SLOTS];
    unsigned next; /* the slot a miss replaces */
    int mismatch;
};

static int same_key(const struct slot *s, const struct ts_engine *e,
                    const struct ts_quota_node *root, const struct ts__eng_wl *wl, const size_t *fr,
                    const int64_t *need, size_t n)
{
    return s->used && s->gen == root->gen && s->resv_sig == root->resv_sig &&
           s->config_seq == e->config_seq && s->priority == wl->priority &&
           s->queue_ts == wl->queue_ts && s->n == n && !memcmp(s->fr, fr, n * sizeof(*fr)) &&
           !memcmp(s->need, need, n * sizeof(*need));
}

static struct ts__eng_target *copy_targets(const struct ts__eng_target *t, size_t nt)
{
    struct ts__eng_target *c;

    if (!nt)
        return NULL;
    c = ts_xmalloc(nt * sizeof(*c));
    memcpy(c, t, nt * sizeof(*c));
    return c;
}

static void slot_clear(struct slot *s)
{
    free(s->fr);
    free(s->need);
    free(s->t);
    memset(s, 0, sizeof(*s));
}

static int same_answer(const struct slot *s, const struct ts__eng_target *t, size_t nt, int cross)
{
    if (s->nt != nt || s->cross != cross)
        return 0;
    for (size_t i = 0; i < nt; i++) {
        if (s->t[i].wl != t[i].wl || strcmp(s->t[i].reason, t[i].reason))
            return 0;
    }
    return 1;
}

size_t ts__eng_preempt_targets_memo(const struct ts_engine *e, struct ts__eng_cq *cq,
                                    const struct ts__eng_wl *wl, const size_t *fr,
                                    const int64_t *need, size_t n, struct ts__eng_target **out,
                                    int *cross)
{
    const struct ts_quota_node *root = ts_quota_root(&cq->node);
    struct ts__eng_memo *m = cq->memo;
    struct slot *s;
    size_t nt;

    for (size_t i = 0; m && i < SLOTS; i++) {
        s = &m->slot[i];
        if (!same_key(s, e, root, wl, fr, need, n))
            continue;
        if (e->config.check_memo) {
            nt = ts__eng_preempt_targets(e, cq, wl, fr, need, n, out, cross);
            m->mismatch |= !same_answer(s, *out, nt, *cross);
            free(*out);
        }
        *out = copy_targets(s->t, s->nt);
        *cross = s->cross;
        return s->nt;
    }
    nt = ts__eng_preempt_targets(e, cq, wl, fr, need, n, out, cross);
    if (!m)
        m = cq->memo = ts_xcalloc(1, sizeof(*m));
    s = &m->slot[m->next];
    m->next = (m->next + 1) % SLOTS;
    slot_clear(s);
    s->used = 1;
    s->gen = root->gen;
    s->config_seq = e->config_seq;
    s->resv_sig = root->resv_sig;
    s->priority = wl->priority;
    s->queue_ts = wl->queue_ts;
    s->n = n;
    s->fr = ts_xmalloc((n ? n : 1) * sizeof(*fr));
    s->need = ts_xmalloc((n ? n : 1) * sizeof(*need));
    memcpy(s->fr, fr, n * sizeof(*fr));
    memcpy(s->need, need, n * sizeof(*need));
    s->nt = nt;
    s->t = copy_targets(*out, nt);
    s->cross = *cross;
    return nt;
}

/* splitmix64's finaliser: spreads each reservation over all 64 bits, so
 * that different sets held back sum to different fingerprints */
static uint64_t mix(uint64_t x)
{
    x ^= x >> 30;
    x *= UINT64_C(0xbf58476d1ce4e5b9);
    x ^= x >> 27;
    x *= UINT64_C(0x94d049bb133111eb);
    x ^= x >> 31;
    return x;
}

void ts__eng_memo_reserve(struct ts_quota_node *node, size_t fr, int64_t v, int sign)
{
    uint64_t h = mix((uint64_t)(uintptr_t)node ^ mix(fr ^ mix((uint64_t)v)));

    /* a sum, not a chain: the same reservations in any order are the same
     * usage, and giving one back takes exactly its term out again */
    if (sign > 0)
        ts_quota_root(node)->resv_sig += h;
    else
        ts_quota_root(node)->resv_sig -= h;
}

int ts__eng_memo_mismatch(const struct ts__eng_cq *cq)
{
    return cq->memo && cq->memo->mismatch;
}

void ts__eng_memo_free(struct ts__eng_cq *cq)
{
    if (!cq->memo)
        return;
    for (size_t i = 0; i < SLOTS; i++)
        slot_clear(&cq->memo->slot[i]);
    free(cq->memo);
    cq->memo = NULL;
}
