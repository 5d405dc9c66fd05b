package main

// Kueue's scheduler over its own cache and queue manager, on a fake client,
// set up as pkg/scheduler/scheduler_test.go (TestSchedule) does, with the
// controllers that react to its decisions played by Kueue's own workload
// controller event handlers (pkg/controller/core WorkloadReconciler) and a
// small stand-in for the job controller (jobframework reconciler step 6:
// an evicted job stops at once and its quota reservation is cleared).

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"sync"
	"time"
	"unsafe"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/api/equality"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"
	testingclock "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	configapi "sigs.k8s.io/kueue/apis/config/v1beta2"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	qcache "sigs.k8s.io/kueue/pkg/cache/queue"
	schdcache "sigs.k8s.io/kueue/pkg/cache/scheduler"
	"sigs.k8s.io/kueue/pkg/controller/core"
	"sigs.k8s.io/kueue/pkg/scheduler"
	preemptexpectations "sigs.k8s.io/kueue/pkg/scheduler/preemption/expectations"
	"sigs.k8s.io/kueue/pkg/scheduler/preemption/fairsharing"
	"sigs.k8s.io/kueue/pkg/util/routine"
	utiltesting "sigs.k8s.io/kueue/pkg/util/testing"
	"sigs.k8s.io/kueue/pkg/util/waitforpodsready"
	"sigs.k8s.io/kueue/pkg/workload"
)

var theNow time.Time

func typesUID(s string) types.UID { return types.UID(s) }

type requeuer interface{ ProcessRequeues(ctx context.Context) int }

type env struct {
	ctx      context.Context
	log      logr.Logger
	clock    *testingclock.FakeClock
	cl       ctrl.Client
	cache    *schdcache.Cache
	queues   *qcache.Manager
	requeuer requeuer
	sched    *scheduler.Scheduler
	wlRec    *core.WorkloadReconciler
	wg       sync.WaitGroup
	order    []types.NamespacedName // input order, for printing
	observed map[types.NamespacedName]*kueue.Workload
	// evicted in the input but still holding quota: their jobs are on their
	// way out and keep the quota (as simulate models them) until evicted anew
	leaving map[types.NamespacedName]metav1.Condition
	// waitForPodsReady.blockAdmission: the scheduler may block in a cycle
	podsReadyTracking bool
	blocked           chan struct{}
	recorder          *record.FakeRecorder
}

// setUnexported sets an unexported field (the workload controller's clock,
// which has no option) so that every timestamp comes from the fake clock.
func setUnexported(obj any, name string, value any) {
	f := reflect.ValueOf(obj).Elem().FieldByName(name)
	if !f.IsValid() {
		return
	}
	reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().Set(reflect.ValueOf(value))
}

func newEnv(o *objects, cfg *configapi.Configuration) (*env, error) {
	e := &env{
		ctx:      logr.NewContext(context.Background(), logr.Discard()),
		log:      logr.Discard(),
		clock:    testingclock.NewFakeClock(theNow),
		observed: map[types.NamespacedName]*kueue.Workload{},
		leaving:  map[types.NamespacedName]metav1.Condition{},
	}
	var initObjs []ctrl.Object
	for _, ns := range o.allNamespaces() {
		initObjs = append(initObjs, ns)
	}
	for _, x := range o.flavors {
		initObjs = append(initObjs, x)
	}
	for _, x := range o.cohorts {
		initObjs = append(initObjs, x)
	}
	for _, x := range o.cqs {
		initObjs = append(initObjs, x)
	}
	for _, x := range o.checks {
		initObjs = append(initObjs, x)
	}
	for _, x := range o.lqs {
		initObjs = append(initObjs, x)
	}
	for _, x := range o.wpcs {
		initObjs = append(initObjs, x)
	}
	for _, x := range o.workloads {
		e.order = append(e.order, types.NamespacedName{Namespace: x.Namespace, Name: x.Name})
	}
	e.cl = utiltesting.NewClientBuilder().
		WithObjects(initObjs...).
		WithStatusSubresource(&kueue.Workload{}, &kueue.ClusterQueue{}, &kueue.LocalQueue{}, &kueue.Cohort{}).
		WithInterceptorFuncs(interceptor.Funcs{SubResourcePatch: utiltesting.TreatSSAAsStrategicMerge}).
		Build()

	blockAdmission := waitforpodsready.Enabled(cfg.WaitForPodsReady) &&
		cfg.WaitForPodsReady.BlockAdmission != nil && *cfg.WaitForPodsReady.BlockAdmission
	requeuingTS := configapi.EvictionTimestamp
	if cfg.WaitForPodsReady != nil && cfg.WaitForPodsReady.RequeuingStrategy != nil &&
		cfg.WaitForPodsReady.RequeuingStrategy.Timestamp != nil {
		requeuingTS = *cfg.WaitForPodsReady.RequeuingStrategy.Timestamp
	}
	e.podsReadyTracking = blockAdmission
	cacheOpts := []schdcache.Option{schdcache.WithPodsReadyTracking(blockAdmission)}
	queueOpts := []qcache.Option{qcache.WithPodsReadyRequeuingTimestamp(requeuingTS), qcache.WithClock(e.clock)}
	if cfg.Resources != nil && len(cfg.Resources.ExcludeResourcePrefixes) > 0 {
		cacheOpts = append(cacheOpts, schdcache.WithExcludedResourcePrefixes(cfg.Resources.ExcludeResourcePrefixes))
		queueOpts = append(queueOpts, qcache.WithExcludedResourcePrefixes(cfg.Resources.ExcludeResourcePrefixes))
	}
	if cfg.Resources != nil && len(cfg.Resources.Transformations) > 0 {
		cacheOpts = append(cacheOpts, schdcache.WithResourceTransformations(cfg.Resources.Transformations))
		queueOpts = append(queueOpts, qcache.WithResourceTransformations(cfg.Resources.Transformations))
	}
	if cfg.FairSharing != nil {
		cacheOpts = append(cacheOpts, schdcache.WithFairSharing(fairsharing.Enabled(cfg.FairSharing)))
	}
	if cfg.AdmissionFairSharing != nil {
		queueOpts = append(queueOpts, qcache.WithAdmissionFairSharing(cfg.AdmissionFairSharing))
		cacheOpts = append(cacheOpts, schdcache.WithAdmissionFairSharing(cfg.AdmissionFairSharing))
	}
	expect := preemptexpectations.New()
	queueOpts = append(queueOpts, qcache.WithPreemptionExpectations(expect))
	e.cache = schdcache.New(e.cl, cacheOpts...)
	e.queues, e.requeuer = qcache.NewManagerForUnitTestsWithRequeuer(e.cl, e.cache, queueOpts...)

	recorder := record.NewFakeRecorder(100000)
	e.recorder = recorder
	go func() { // drain events
		for range recorder.Events {
		}
	}()
	e.wlRec = core.NewWorkloadReconciler(e.cl, e.queues, e.cache, recorder,
		coreWaitForPodsReadyOption(cfg.WaitForPodsReady),
		core.WithPreemptionExpectations(expect))
	setUnexported(e.wlRec, "clock", clock.Clock(e.clock))

	ctx, log := e.ctx, e.log
	for _, x := range o.workloads {
		if !workload.IsAdmissible(x) {
			if err := e.createWorkload(x); err != nil {
				return nil, err
			}
		}
	}
	for _, rf := range o.flavors {
		e.cache.AddOrUpdateResourceFlavor(log, rf.DeepCopy())
	}
	for _, co := range o.cohorts {
		// as the Cohort controller: an error (a cycle) is logged, not fatal
		if err := e.cache.AddOrUpdateCohort(co.DeepCopy()); err != nil {
			fmt.Fprintf(stderr, "warning: Cohort %q: %v\n", co.Name, err)
		}
		e.queues.AddOrUpdateCohort(ctx, co.DeepCopy())
	}
	for _, ac := range o.checks {
		// as the AdmissionCheck controller (admissioncheck_controller.go)
		e.cache.AddOrUpdateAdmissionCheck(log, ac.DeepCopy())
	}
	for _, cq := range o.cqs {
		// as the ClusterQueue controller: errors (a cohort cycle) are logged
		if err := e.cache.AddClusterQueue(ctx, cq.DeepCopy()); err != nil {
			fmt.Fprintf(stderr, "warning: ClusterQueue %q: %v\n", cq.Name, err)
		}
		if err := e.queues.AddClusterQueue(ctx, cq.DeepCopy()); err != nil {
			fmt.Fprintf(stderr, "warning: ClusterQueue %q: %v\n", cq.Name, err)
		}
		// as ClusterQueueReconciler.Reconcile (clusterqueue_controller.go): a
		// ClusterQueue being deleted is terminating, and admits nothing new
		if !cq.DeletionTimestamp.IsZero() {
			e.cache.TerminateClusterQueue(kueue.ClusterQueueReference(cq.Name))
		}
	}
	for _, lq := range o.lqs {
		// as LocalQueueReconciler.Create (pkg/controller/core/localqueue_controller.go):
		// a stopped LocalQueue is not added to the queues
		if ptr.Deref(lq.Spec.StopPolicy, kueue.None) == kueue.None {
			_ = e.queues.AddLocalQueue(ctx, lq.DeepCopy())
		}
		_ = e.cache.AddLocalQueue(lq.DeepCopy())
	}
	// Pending workloads are created once the queues exist (as when jobs are
	// submitted to a running Kueue; at a restart, Manager.AddLocalQueue
	// would instead push every pending workload into the heap, backoff or
	// not). Workloads holding quota, or finished, were created above, before
	// the queues, as in a running cluster: Manager.AddLocalQueue assigns them
	// to their LocalQueue, so that releasing their quota later retries the
	// queue's inadmissible workloads.
	for _, x := range o.workloads {
		if workload.IsAdmissible(x) {
			if err := e.createWorkload(x); err != nil {
				return nil, err
			}
		}
	}
	for _, key := range e.order {
		var wl kueue.Workload
		if err := e.cl.Get(ctx, key, &wl); err != nil {
			return nil, err
		}
		e.wlRec.Create(event.TypedCreateEvent[*kueue.Workload]{Object: wl.DeepCopy()})
		e.observed[key] = wl.DeepCopy()
		if ev := apimeta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadEvicted); ev != nil && ev.Status == metav1.ConditionTrue && workload.HasQuotaReservation(&wl) {
			e.leaving[key] = *ev
		}
	}
	e.requeuer.ProcessRequeues(ctx)

	e.sched = scheduler.New(e.queues, e.cache, e.cl, recorder,
		scheduler.WithFairSharing(cfg.FairSharing),
		scheduler.WithAdmissionFairSharing(cfg.AdmissionFairSharing),
		scheduler.WithPodsReadyRequeuingTimestamp(requeuingTS),
		scheduler.WithClock(nil, e.clock),
		scheduler.WithPreemptionExpectations(expect))
	kueueSetAdmissionRoutineWrapper(e.sched, routine.NewWrapper(func() { e.wg.Add(1) }, func() { e.wg.Done() }))
	return e, nil
}

// close ends the event drain; a cycle left blocked (blockAdmission) may
// still record events, so its recorder stays open.
func (e *env) close() {
	if e.blocked == nil {
		close(e.recorder.Events)
	}
}

// createWorkload stores a workload (spec, then status) in the fake client.
func (e *env) createWorkload(x *kueue.Workload) error {
	wl := x.DeepCopy()
	status := *wl.Status.DeepCopy()
	if err := e.cl.Create(e.ctx, wl); err != nil {
		return fmt.Errorf("Workload %s/%s: %w", x.Namespace, x.Name, err)
	}
	wl.Status = status
	if err := e.cl.Status().Update(e.ctx, wl); err != nil {
		return fmt.Errorf("Workload %s/%s: %w", x.Namespace, x.Name, err)
	}
	return nil
}

// hasHeads: whether a scheduling cycle would find a head (Manager.Heads
// would block otherwise): a pending workload in an active ClusterQueue.
func (e *env) hasHeads() bool {
	for cq, wls := range e.queues.Dump() {
		if len(wls) > 0 && e.cache.ClusterQueueActive(cq) {
			return true
		}
	}
	return false
}

// workloads lists the client's workloads by key.
func (e *env) workloads() map[types.NamespacedName]*kueue.Workload {
	var list kueue.WorkloadList
	_ = e.cl.List(e.ctx, &list)
	out := make(map[types.NamespacedName]*kueue.Workload, len(list.Items))
	for i := range list.Items {
		w := &list.Items[i]
		out[types.NamespacedName{Namespace: w.Namespace, Name: w.Name}] = w
	}
	return out
}

// decisionState is what a cycle can change, without timestamps.
func decisionState(w *kueue.Workload) any {
	type cond struct{ T, S, R, M string }
	var cs []cond
	for _, c := range w.Status.Conditions {
		cs = append(cs, cond{c.Type, string(c.Status), c.Reason, c.Message})
	}
	sort.Slice(cs, func(i, j int) bool { return cs[i].T < cs[j].T })
	return struct {
		C []cond
		A *kueue.Admission
	}{cs, w.Status.Admission}
}

// settle plays the controllers after a cycle: the job controller stops
// evicted jobs, and the workload controller's update events reach the cache
// and queues. Returns whether any workload changed.
func (e *env) settle() bool {
	changed := false
	for round := 0; round < 10; round++ {
		// the workload controller reconciles every workload (inactive or
		// stopped queues, draining, PodsReady timeouts, Admitted condition)
		for _, key := range e.order {
			_, _ = e.wlRec.Reconcile(e.ctx, reconcile.Request{NamespacedName: key})
		}
		cur := e.workloads()
		// job controller: an evicted job stops at once; its quota is released
		for _, key := range e.order {
			w := cur[key]
			if w == nil {
				continue
			}
			ev := apimeta.FindStatusCondition(w.Status.Conditions, kueue.WorkloadEvicted)
			if ev == nil || ev.Status != metav1.ConditionTrue || !workload.HasQuotaReservation(w) {
				continue
			}
			if old, ok := e.leaving[key]; ok && old.Reason == ev.Reason && old.Message == ev.Message && old.LastTransitionTime.Equal(&ev.LastTransitionTime) {
				continue
			}
			// (a status update, not Kueue's server-side apply patch: the fake
			// client treats that as a merge patch, which cannot drop the
			// admission)
			wl := w.DeepCopy()
			setRequeued := ev.Reason == kueue.WorkloadEvictedByPreemption || ev.Reason == kueue.WorkloadEvictedDueToNodeFailures
			if workload.SetRequeuedCondition(wl, ev.Reason, ev.Message, setRequeued) {
				// (SetRequeuedCondition stamps the wall clock)
				if c := apimeta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadRequeued); c != nil {
					c.LastTransitionTime = metav1.NewTime(e.clock.Now())
				}
			}
			workload.UnsetQuotaReservationWithCondition(wl, "Pending", ev.Message, e.clock.Now())
			_ = e.cl.Status().Update(e.ctx, wl)
		}
		cur = e.workloads()
		any := false
		for _, key := range e.order {
			w, old := cur[key], e.observed[key]
			if w == nil || old == nil {
				continue
			}
			if equality.Semantic.DeepEqual(old.Status, w.Status) && equality.Semantic.DeepEqual(old.Spec, w.Spec) {
				continue
			}
			if !equality.Semantic.DeepEqual(decisionState(old), decisionState(w)) {
				changed = true
			}
			any = true
			e.wlRec.Update(event.TypedUpdateEvent[*kueue.Workload]{ObjectOld: old.DeepCopy(), ObjectNew: w.DeepCopy()})
			e.observed[key] = w.DeepCopy()
		}
		e.requeuer.ProcessRequeues(e.ctx)
		if !any {
			break
		}
	}
	return changed
}

// cycle runs one scheduling cycle (if any queue has a head) and lets the
// controllers react. Returns whether anything changed.
//
// With waitForPodsReady.blockAdmission, Kueue's scheduler blocks inside a
// cycle (Cache.WaitForPodsReady) until every admitted workload is PodsReady:
// the cycle then runs in its own goroutine, and one that has not returned
// after blockWait is left blocked, as in Kueue, until a later step (a
// workload finishing) releases it.
func (e *env) cycle() bool {
	if e.blocked != nil {
		select {
		case <-e.blocked:
			e.blocked = nil
			e.wg.Wait()
			e.settle()
			return true
		case <-time.After(blockWait):
			return e.settle()
		}
	}
	if !e.hasHeads() {
		return e.settle()
	}
	before := e.queueState()
	if e.podsReadyTracking {
		done := make(chan struct{})
		go func() {
			kueueSchedule(e.sched, e.ctx)
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(blockWait):
			e.blocked = done
			e.settle()
			return true
		}
	} else {
		kueueSchedule(e.sched, e.ctx)
	}
	e.wg.Wait()
	changed := e.settle()
	if !changed && !reflect.DeepEqual(before, e.queueState()) {
		changed = true // the queues moved (a head parked): not settled yet
	}
	return changed
}

// queueState: each ClusterQueue's pending workloads, in its heap and in its
// inadmissible list, as sorted sets (the heap's array order is no progress).
func (e *env) queueState() any {
	norm := func(m map[kueue.ClusterQueueReference][]workload.Reference) map[kueue.ClusterQueueReference][]workload.Reference {
		for k, v := range m {
			v = slices.Clone(v)
			slices.Sort(v)
			m[k] = v
		}
		return m
	}
	return [2]any{norm(e.queues.Dump()), norm(e.queues.DumpInadmissible())}
}

const blockWait = 300 * time.Millisecond

// run: N cycles, or (N = 0) until nothing changes. Returns the cycles that
// changed something.
func (e *env) run(maxCycles int) int {
	if maxCycles == 0 {
		n, _ := e.runUpTo(settleCycles)
		return n
	}
	n, _ := e.cycles(maxCycles, maxCycles)
	return n
}

// runUpTo runs until nothing changes, at most limit cycles; settled is
// false when the limit was reached first.
func (e *env) runUpTo(limit int) (n int, settled bool) {
	return e.cycles(0, limit)
}

func (e *env) cycles(maxCycles, limit int) (int, bool) {
	n := 0
	quiet := 0
	for i := 0; i < limit; i++ {
		if e.cycle() {
			n++
			quiet = 0
			continue
		}
		quiet++
		if maxCycles == 0 && (quiet >= quietCycles || !e.hasHeads()) {
			return n, true
		}
	}
	return n, false
}

const settleCycles = 5000

// quietCycles: a run stops after this many cycles in a row that change
// nothing while heads remain. One is not enough: a head that fails in a
// cycle during which inadmissible workloads were requeued goes straight
// back to the heap (cluster_queue.go requeueIfNotPresent: queueInadmissibleCycle
// >= popCycle), so the cycle looks idle, yet the next one pops it again,
// parks it, and moves on to the workloads behind it.
const quietCycles = 3

// finish marks a workload finished as the job controller would
// (simulate: reason Succeeded, "Job finished successfully").
func (e *env) finish(key types.NamespacedName) error {
	var wl kueue.Workload
	if err := e.cl.Get(e.ctx, key, &wl); err != nil {
		return err
	}
	if err := workload.Finish(e.ctx, e.cl, &wl, kueue.WorkloadFinishedReasonSucceeded, "Job finished successfully", e.clock); err != nil {
		return err
	}
	e.settle()
	return nil
}

// remove deletes a workload as the workload controller's finalizer
// handling would: out of the queues and cache, inadmissible ones retried.
func (e *env) remove(key types.NamespacedName) error {
	var wl kueue.Workload
	if err := e.cl.Get(e.ctx, key, &wl); err != nil {
		return err
	}
	wlKey := workload.Key(&wl)
	e.queues.QueueAssociatedInadmissibleWorkloadsAfter(e.ctx, wlKey, func() {
		_ = e.cache.DeleteWorkload(e.log, wlKey)
	})
	e.queues.DeleteWorkload(e.log, wlKey)
	if err := e.cl.Delete(e.ctx, &wl); err != nil {
		return err
	}
	e.wlRec.Delete(event.TypedDeleteEvent[*kueue.Workload]{Object: wl.DeepCopy()})
	delete(e.observed, key)
	for i, k := range e.order {
		if k == key {
			e.order = append(e.order[:i], e.order[i+1:]...)
			break
		}
	}
	e.requeuer.ProcessRequeues(e.ctx)
	return nil
}

// result: the client's workloads in input order, as simulate prints them.
func (e *env) result() []*kueue.Workload {
	cur := e.workloads()
	var out []*kueue.Workload
	for _, key := range e.order {
		if w := cur[key]; w != nil {
			w.APIVersion = kueue.GroupVersion.String()
			w.Kind = "Workload"
			w.ResourceVersion = ""
			w.ManagedFields = nil
			out = append(out, w)
		}
	}
	return out
}
