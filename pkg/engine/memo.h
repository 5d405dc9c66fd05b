/*
 * memo.h - preemption searches remembered between cycles.
 *
 * A preemptor waiting for its victims is searched again every cycle, twice
 * (by the flavor assignment's oracle, then by the cycle), and the answer
 * rarely changes: under a saturated write budget most searches find only
 * victims already on their way out, and searching is the costliest thing
 * a cycle does.
 *
 * A search reads the preemptor's ClusterQueue, priority and queue time, the
 * request (flavor-resources and amounts), the engine's configuration and
 * the queue's quota tree: its usage, its holders and their flags.  Nothing
 * else: not the preemptor's identity.  Its answer is remembered per queue
 * with all of these as the key: the tree as its root's version (gen, moved
 * on by ts__eng_tree_changed() at every lasting change), the configuration
 * as the engine's config_seq, and the quota the running cycle holds back
 * for waiting preemptors, which comes and goes each cycle, as its
 * fingerprint (resv_sig, see ts__eng_memo_reserve()).
 *
 * With ts_engine_config.check_memo set (tests), every answer given from
 * memory is compared with a fresh search; a difference is reported by
 * ts_engine_check().
 *
 * Private to the engine.
 */
#ifndef TS_ENGINE_MEMO_H
#define TS_ENGINE_MEMO_H

#include "engine/preempt.h"

/* ts__eng_preempt_targets(), remembered.  Same contract. */
size_t ts__eng_preempt_targets_memo(const struct ts_engine *e, struct ts__eng_cq *cq,
                                    const struct ts__eng_wl *wl, const size_t *fr,
                                    const int64_t *need, size_t n, struct ts__eng_target **out,
                                    int *cross);

/* The cycle holds back (sign > 0) or gives back (sign < 0) v of fr at node
 * (after changing the node's usage): updates its tree's fingerprint of
 * what is held back. */
void ts__eng_memo_reserve(struct ts_quota_node *node, size_t fr, int64_t v, int sign);

/* Whether an answer given from memory differed from a fresh search
 * (check_memo only). */
int ts__eng_memo_mismatch(const struct ts__eng_cq *cq);

/* Frees cq's remembered searches (cq->memo = NULL). */
void ts__eng_memo_free(struct ts__eng_cq *cq);

#endif
