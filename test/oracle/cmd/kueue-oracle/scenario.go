package main

// The Scenario document of test/scenarios/*.yaml (format: the comment at
// the top of test/unit/test_scenarios.c): steps run / finish / delete, and
// expectations on Workloads checked here against Kueue's answers.
// LocalQueue status expectations are not modelled (reported as such).

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
)

func splitKey(k string) types.NamespacedName {
	if i := strings.Index(k, "/"); i >= 0 {
		return types.NamespacedName{Namespace: k[:i], Name: k[i+1:]}
	}
	return types.NamespacedName{Namespace: "default", Name: k}
}

func strOf(m map[string]any, k string) (string, bool) {
	s, ok := m[k].(string)
	return s, ok
}

func runSteps(e *env, sc *doc, check bool) []string {
	var problems []string
	steps, _ := sc.raw["steps"].([]any)
	for i, st := range steps {
		step, _ := st.(map[string]any)
		var stepProblems []string
		p := func(key, format string, args ...any) {
			stepProblems = append(stepProblems, fmt.Sprintf("  %s: %s", key, fmt.Sprintf(format, args...)))
		}
		if run, ok := step["run"].(map[string]any); ok {
			n := 0
			if c, ok := toInt(run["cycles"]); ok {
				n = c
			}
			if n > 0 {
				e.run(n)
			} else if _, settled := e.runUpTo(settleCycles); !settled {
				p("run", "still changing after %d cycles (a livelock?)", settleCycles)
			}
		}
		for _, verb := range []string{"finish", "delete"} {
			list, _ := step[verb].([]any)
			for _, k := range list {
				ks, _ := k.(string)
				key := splitKey(ks)
				var err error
				if verb == "finish" {
					err = e.finish(key)
				} else {
					err = e.remove(key)
				}
				if err != nil {
					p(ks, "cannot %s: %v", verb, err)
				}
			}
		}
		if check {
			exps, _ := step["expect"].([]any)
			wls := e.workloads()
			for _, x := range exps {
				exp, _ := x.(map[string]any)
				checkOne(wls, exp, p)
			}
		}
		if len(stepProblems) > 0 {
			problems = append(problems, stepProblems...)
			problems = append(problems, fmt.Sprintf("  (in step %d)", i))
		}
	}
	return problems
}

func psaOf(w *kueue.Workload, ps string) *kueue.PodSetAssignment {
	if w.Status.Admission == nil {
		return nil
	}
	for i := range w.Status.Admission.PodSetAssignments {
		if string(w.Status.Admission.PodSetAssignments[i].Name) == ps {
			return &w.Status.Admission.PodSetAssignments[i]
		}
	}
	return nil
}

func checkOne(wls map[types.NamespacedName]*kueue.Workload, exp map[string]any, p func(string, string, ...any)) {
	key, ok := strOf(exp, "workload")
	if !ok {
		if lq, ok := strOf(exp, "localQueue"); ok {
			p(lq, "LocalQueue status expectations are not modelled by the oracle")
			return
		}
		p("?", "expectation without workload")
		return
	}
	w := wls[splitKey(key)]
	if w == nil {
		p(key, "no such workload")
		return
	}
	qr := apimeta.FindStatusCondition(w.Status.Conditions, kueue.WorkloadQuotaReserved)
	admitted := w.Status.Admission != nil && qr != nil && qr.Status == metav1.ConditionTrue
	qrReason, qrMessage := "-", "-"
	if qr != nil {
		qrReason, qrMessage = qr.Reason, qr.Message
	}
	if a, ok := exp["admitted"].(bool); ok && a != admitted {
		p(key, "admitted %v, want %v (QuotaReserved %s: %s)", admitted, a, qrReason, qrMessage)
	}
	if want, ok := strOf(exp, "clusterQueue"); ok {
		got := "(none)"
		if w.Status.Admission != nil {
			got = string(w.Status.Admission.ClusterQueue)
		}
		if got != want {
			p(key, "admitted to %s, want %s", got, want)
		}
	}
	if want, ok := strOf(exp, "reason"); ok && (qr == nil || qr.Reason != want) {
		p(key, "reason %s, want %s", qrReason, want)
	}
	if want, ok := strOf(exp, "message"); ok && (qr == nil || qr.Message != want) {
		p(key, "message %q\n      want %q", qrMessage, want)
	}
	if want, ok := strOf(exp, "messageContains"); ok && (qr == nil || !strings.Contains(qr.Message, want)) {
		p(key, "message %q lacks %q", qrMessage, want)
	}
	if fl, ok := exp["flavors"].(map[string]any); ok {
		for ps, rs := range fl {
			a := psaOf(w, ps)
			rm, _ := rs.(map[string]any)
			for r, f := range rm {
				got := "(none)"
				if a != nil {
					if g, ok := a.Flavors[corev1ResourceName(r)]; ok {
						got = string(g)
					}
				}
				if fs, _ := f.(string); got != fs {
					p(key, "pod set %s resource %s: flavor %s, want %v", ps, r, got, f)
				}
			}
		}
	}
	if cnt, ok := exp["count"].(map[string]any); ok {
		for ps, n := range cnt {
			a := psaOf(w, ps)
			got := -1
			if a != nil && a.Count != nil {
				got = int(*a.Count)
			}
			if ni, _ := toInt(n); got != ni {
				p(key, "pod set %s: count %d, want %v", ps, got, n)
			}
		}
	}
	if us, ok := exp["usage"].(map[string]any); ok {
		for ps, rs := range us {
			a := psaOf(w, ps)
			rm, _ := rs.(map[string]any)
			for r, q := range rm {
				got := "(none)"
				if a != nil {
					if g, ok := a.ResourceUsage[corev1ResourceName(r)]; ok {
						got = g.String()
					}
				}
				if qs, _ := q.(string); got != qs {
					p(key, "pod set %s usage of %s: %s, want %v", ps, r, got, q)
				}
			}
		}
	}
	if cs, ok := exp["conditions"].(map[string]any); ok {
		for t, c := range cs {
			cm, _ := c.(map[string]any)
			got := apimeta.FindStatusCondition(w.Status.Conditions, t)
			if got == nil {
				p(key, "no %s condition", t)
				continue
			}
			if want, ok := strOf(cm, "status"); ok && string(got.Status) != want {
				p(key, "%s status %s, want %s", t, got.Status, want)
			}
			if want, ok := strOf(cm, "reason"); ok && got.Reason != want {
				p(key, "%s reason %s, want %s", t, got.Reason, want)
			}
			if want, ok := strOf(cm, "messageContains"); ok && !strings.Contains(got.Message, want) {
				p(key, "%s message %q lacks %q", t, got.Message, want)
			}
		}
	}
}

func corev1ResourceName(s string) corev1.ResourceName { return corev1.ResourceName(s) }

// toInt: YAML numbers arrive as int64 (k8s.io/apimachinery/pkg/util/json)
// or float64.
func toInt(v any) (int, bool) {
	switch n := v.(type) {
	case int64:
		return int(n), true
	case float64:
		return int(n), true
	case int:
		return n, true
	}
	return 0, false
}

// expectedAddError: whether a rejection is one the Scenario expects
// (addErrors: substrings of expected add errors).
func expectedAddError(sc *doc, msg string) bool {
	if sc == nil {
		return false
	}
	list, _ := sc.raw["addErrors"].([]any)
	for _, x := range list {
		if s, ok := x.(string); ok && strings.Contains(msg, s) {
			return true
		}
	}
	return false
}
