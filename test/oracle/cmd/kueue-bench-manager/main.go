// Command kueue-bench-manager runs Kueue's core controllers and scheduler
// (sigs.k8s.io/kueue, the pinned release) the way Kueue's own
// test/performance/scheduler/minimalkueue sets them up, with one
// difference: the client budget is a flag instead of the 50/100 that
// minimalkueue fixes, so `make bench-vs-kueue` can measure Kueue without a
// budget on the same control plane.  Kueue's runner starts it in place of
// minimalkueue (--minimalKueue=PATH) and passes only --kubeconfig, so the
// budget can also come from the environment: TS_KUEUE_QPS, TS_KUEUE_BURST
// (a QPS below 0 turns client-go's limiter off).
//
// Test tooling only; the product is C.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime/pprof"
	"strconv"
	"syscall"

	"go.uber.org/zap/zapcore"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	crconfig "sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	configapi "sigs.k8s.io/kueue/apis/config/v1beta2"
	kueuealpha "sigs.k8s.io/kueue/apis/kueue/v1alpha1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	qcache "sigs.k8s.io/kueue/pkg/cache/queue"
	schdcache "sigs.k8s.io/kueue/pkg/cache/scheduler"
	"sigs.k8s.io/kueue/pkg/constants"
	"sigs.k8s.io/kueue/pkg/controller/core"
	"sigs.k8s.io/kueue/pkg/controller/core/indexer"
	"sigs.k8s.io/kueue/pkg/scheduler"
	preemptexpectations "sigs.k8s.io/kueue/pkg/scheduler/preemption/expectations"
)

func envFloat(name string, def float64) float64 {
	if v, err := strconv.ParseFloat(os.Getenv(name), 64); err == nil {
		return v
	}
	return def
}

var (
	qps        = flag.Float64("qps", envFloat("TS_KUEUE_QPS", 50), "client QPS (< 0: no limit)")
	burst      = flag.Int("burst", int(envFloat("TS_KUEUE_BURST", 100)), "client burst")
	cpuprofile = flag.String("cpuprofile", "", "write a CPU profile to this file")
)

func main() {
	opts := zap.Options{Development: true, Level: zapcore.ErrorLevel}
	opts.BindFlags(flag.CommandLine)
	flag.Parse()
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&opts)))
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "kueue-bench-manager:", err)
		os.Exit(1)
	}
}

func run() error {
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(kueue.AddToScheme(scheme))
	utilruntime.Must(kueuealpha.AddToScheme(scheme))
	utilruntime.Must(configapi.AddToScheme(scheme))

	cfg, err := ctrl.GetConfig()
	if err != nil {
		return err
	}
	cfg.QPS = float32(*qps)
	cfg.Burst = *burst

	// Kueue's default worker counts, as minimalkueue sets them.
	concurrency := map[string]int{
		kueue.GroupVersion.WithKind("Workload").GroupKind().String():       5,
		kueue.GroupVersion.WithKind("LocalQueue").GroupKind().String():     1,
		kueue.GroupVersion.WithKind("ClusterQueue").GroupKind().String():   1,
		kueue.GroupVersion.WithKind("ResourceFlavor").GroupKind().String(): 1,
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme: scheme,
		Controller: crconfig.Controller{
			SkipNameValidation:   ptr.To(true),
			GroupKindConcurrency: concurrency,
		},
		Metrics: metricsserver.Options{BindAddress: "0"},
	})
	if err != nil {
		return fmt.Errorf("manager: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		sig := make(chan os.Signal, 2)
		signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
		<-sig
		cancel()
	}()

	if err := indexer.Setup(ctx, mgr.GetFieldIndexer()); err != nil {
		return fmt.Errorf("indexers: %w", err)
	}
	cache := schdcache.New(mgr.GetClient())
	requeuer := qcache.NewRequeuer()
	if err := mgr.Add(requeuer); err != nil {
		return err
	}
	expectations := preemptexpectations.New()
	queues := qcache.NewManager(mgr.GetClient(), cache, requeuer, qcache.WithPreemptionExpectations(expectations))
	go queues.CleanUpOnContext(ctx)
	go cache.CleanUpOnContext(ctx)
	if name, err := core.SetupControllers(mgr, queues, cache, &configapi.Configuration{}, nil, expectations, nil); err != nil {
		return fmt.Errorf("controller %s: %w", name, err)
	}
	sched := scheduler.New(queues, cache, mgr.GetClient(), mgr.GetEventRecorderFor(constants.AdmissionName),
		scheduler.WithPreemptionExpectations(expectations))
	if err := mgr.Add(sched); err != nil {
		return err
	}
	return mgr.Start(ctx)
}
