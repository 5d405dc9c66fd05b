// kueue-oracle runs Kueue's own scheduler (sigs.k8s.io/kueue, the release
// pinned in go.mod) on the multi-document YAML that `turnstilectl simulate`
// reads, and prints the decisions as `turnstilectl simulate -o json` does:
// a v1 List of the Workloads with their status.
//
//	kueue-oracle -f FILE [-f FILE...] [--cycles N] [-o json|yaml] [--config FILE]
//	             [--fair-sharing] [--now RFC3339] [--crds DIR] [--steps] [--check]
//	kueue-oracle --serve   (requests on stdin, one per line: serve.go)
//
// --steps applies the steps of the file's Scenario document (run, finish,
// delete) instead of one run; --check (implies --steps) checks the
// Scenario's expectations against Kueue's answers and prints the failures.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/klog/v2"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	sigsyaml "sigs.k8s.io/yaml"

	configv1beta1 "sigs.k8s.io/kueue/apis/config/v1beta1"
	configapi "sigs.k8s.io/kueue/apis/config/v1beta2"
	"sigs.k8s.io/kueue/pkg/config"
	// registers the batch/job integration, the default of a Configuration
	_ "sigs.k8s.io/kueue/pkg/controller/jobs/job"

	"github.com/go-logr/logr"
)

type fileList []string

func (f *fileList) String() string     { return strings.Join(*f, ",") }
func (f *fileList) Set(v string) error { *f = append(*f, v); return nil }

func defaultCRDDir() string {
	if d := os.Getenv("KUEUE_ORACLE_CRDS"); d != "" {
		return d
	}
	exe, err := os.Executable()
	if err != nil {
		return "crds"
	}
	return filepath.Join(filepath.Dir(exe), "..", "crds")
}

// Where a run writes; serve mode points them at buffers.
var (
	stdout io.Writer = os.Stdout
	stderr io.Writer = os.Stderr
)

func main() {
	if len(os.Args) == 2 && os.Args[1] == "--serve" {
		os.Exit(serve(os.Stdin, os.Stdout))
	}
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	var files fileList
	fs := flag.NewFlagSet("kueue-oracle", flag.ContinueOnError)
	fs.Var(&files, "f", "input file (repeatable; - for stdin)")
	fs.Var(&files, "filename", "input file")
	cycles := fs.Int("cycles", 0, "scheduling cycles (0: until nothing changes)")
	settle := fs.Int("settle-cycles", settleCycles, "with --cycles 0: give up after this many cycles that change something")
	output := fs.String("o", "json", "json or yaml")
	configFile := fs.String("config", "", "Kueue Configuration file")
	fair := fs.Bool("fair-sharing", false, "enable fair sharing")
	nowStr := fs.String("now", "", "the time of the run (RFC3339; default: now)")
	crdDir := fs.String("crds", defaultCRDDir(), "directory with Kueue's CRDs")
	steps := fs.Bool("steps", false, "apply the Scenario document's steps")
	check := fs.Bool("check", false, "check the Scenario's expectations (implies --steps)")
	printConfig := fs.Bool("print-config", false, "print the Configuration the files carry (JSON) and exit")
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if len(files) == 0 {
		fmt.Fprintln(stderr, "kueue-oracle: no input: give -f FILE")
		return 2
	}
	if *output != "json" && *output != "yaml" {
		fmt.Fprintln(stderr, "kueue-oracle: -o json|yaml")
		return 2
	}
	// Kueue logs through controller-runtime and klog: silence both.
	ctrllog.SetLogger(logr.Discard())
	klog.SetLogger(logr.Discard())

	theNow = time.Now().UTC().Truncate(time.Second)
	if *nowStr != "" {
		t, err := time.Parse(time.RFC3339, *nowStr)
		if err != nil {
			fmt.Fprintf(stderr, "kueue-oracle: bad --now: %v\n", err)
			return 2
		}
		theNow = t.UTC()
	}
	crds, err := loadCRDsOnce(*crdDir)
	if err != nil {
		fmt.Fprintf(stderr, "kueue-oracle: %v\n", err)
		return 2
	}

	objs := &objects{}
	bad := 0
	var addErrs []string
	var allDocs [][]doc
	for _, f := range files {
		docs, err := readDocs(f)
		if err != nil {
			fmt.Fprintf(stderr, "error: %v\n", err)
			return 2
		}
		allDocs = append(allDocs, docs)
	}
	for i, docs := range allDocs {
		for j := range docs {
			d := &docs[j]
			if err := objs.add(d, crds); err != nil {
				// the Scenario document is not an object for simulate either
				fmt.Fprintf(stderr, "error: %s:%d: document %d: %v\n", files[i], d.line, j+1, err)
				bad++
				addErrs = append(addErrs, fmt.Sprintf("%s:%d: %v", files[i], d.line, err))
			}
		}
	}

	if *printConfig {
		if objs.config != nil {
			b, _ := json.Marshal(objs.config)
			fmt.Println(string(b))
		}
		return 0
	}
	cfg, err := loadConfig(*configFile, objs.config)
	if err != nil {
		fmt.Fprintf(stderr, "error: configuration: %v\n", err)
		return 2
	}
	// feature gates from the Configuration, as cmd/kueue/main.go applies them
	if len(cfg.FeatureGates) > 0 {
		if err := config.ValidateFeatureGates("", cfg.FeatureGates).ToAggregate(); err != nil {
			fmt.Fprintf(stderr, "error: configuration: %v\n", err)
			return 2
		}
		rememberFeatureGates(cfg.FeatureGates)
		if err := utilfeature.DefaultMutableFeatureGate.SetFromMap(cfg.FeatureGates); err != nil {
			fmt.Fprintf(stderr, "error: configuration: featureGates: %v\n", err)
			return 2
		}
	}
	if *fair && cfg.FairSharing == nil {
		cfg.FairSharing = &configapi.FairSharing{PreemptionStrategies: []configapi.PreemptionStrategy{
			configapi.LessThanOrEqualToFinalShare, configapi.LessThanInitialShare}}
	}

	e, err := newEnv(objs, &cfg)
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return 2
	}
	rc := 0
	if *steps || *check {
		if objs.scenario == nil {
			fmt.Fprintln(stderr, "error: --steps: no Scenario document")
			return 2
		}
		problems := runSteps(e, objs.scenario, *check)
		if *check {
			unexpected := 0
			for _, msg := range addErrs {
				if !expectedAddError(objs.scenario, msg) {
					problems = append(problems, "  add: "+msg)
					unexpected++
				}
			}
			bad = unexpected
		}
		if len(problems) > 0 {
			for _, p := range problems {
				fmt.Fprintln(stderr, p)
			}
			rc = 1
		}
	} else if *cycles > 0 {
		e.run(*cycles)
	} else if _, settled := e.runUpTo(*settle); !settled {
		// a livelock in Kueue (e.g. two workloads preempting each other
		// in turn): the decisions printed are those of the last cycle
		fmt.Fprintf(stderr, "warning: still changing after %d cycles (a livelock?)\n", *settle)
	}
	defer e.close()
	if err := printList(e, *output); err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return 2
	}
	if bad > 0 && rc == 0 {
		rc = 1
	}
	return rc
}

func configScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(configapi.AddToScheme(s))
	utilruntime.Must(configv1beta1.AddToScheme(s))
	return s
}

// loadConfig reads Kueue's Configuration with Kueue's own loader (defaults,
// v1beta1 conversion, validation): from --config, else the Scenario's.
//
// Kueue v1beta2 (pkg/config/validation.go) refuses two shapes that simulate
// accepts: fairSharing without preemptionStrategies and waitForPodsReady
// without timeout. Rather than model nothing, the oracle then fills in the
// v1beta1 defaults (apis/config/v1beta1/defaults.go: the two strategies
// [LessThanOrEqualToFinalShare, LessThanInitialShare]; timeout 5m), retries
// and says so on stderr ("warning: configuration: ...").
func loadConfig(file string, embedded map[string]any) (configapi.Configuration, error) {
	if file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return configapi.Configuration{}, err
		}
		if err := sigsyaml.Unmarshal(b, &embedded); err != nil {
			return configapi.Configuration{}, err
		}
	}
	if embedded == nil {
		_, cfg, err := config.Load(configScheme(), "")
		return cfg, err
	}
	load := func(m map[string]any) (configapi.Configuration, error) {
		b, err := json.Marshal(m)
		if err != nil {
			return configapi.Configuration{}, err
		}
		tmp, err := os.CreateTemp("", "kueue-oracle-config-*.json")
		if err != nil {
			return configapi.Configuration{}, err
		}
		defer os.Remove(tmp.Name())
		if _, err := tmp.Write(b); err != nil {
			return configapi.Configuration{}, err
		}
		tmp.Close()
		_, cfg, err := config.Load(configScheme(), tmp.Name())
		return cfg, err
	}
	cfg, err := load(embedded)
	if err == nil {
		return cfg, nil
	}
	patched := false
	v1beta2 := embedded["apiVersion"] == "config.kueue.x-k8s.io/v1beta2"
	if fs, ok := embedded["fairSharing"].(map[string]any); ok && v1beta2 && fs["preemptionStrategies"] == nil {
		fs["preemptionStrategies"] = []any{"LessThanOrEqualToFinalShare", "LessThanInitialShare"}
		patched = true
	}
	if w, ok := embedded["waitForPodsReady"].(map[string]any); ok && w["timeout"] == nil {
		w["timeout"] = "5m"
		patched = true
	}
	if !patched {
		return cfg, err
	}
	cfg2, err2 := load(embedded)
	if err2 != nil {
		return cfg, err
	}
	fmt.Fprintf(stderr, "warning: configuration: Kueue refuses it (%v); used the v1beta1 defaults instead\n", err)
	return cfg2, nil
}

func printList(e *env, output string) error {
	items := []any{}
	for _, w := range e.result() {
		items = append(items, w)
	}
	list := map[string]any{
		"apiVersion": "v1",
		"items":      items,
		"kind":       "List",
		"metadata":   map[string]any{"resourceVersion": ""},
	}
	b, err := json.MarshalIndent(list, "", "    ")
	if err != nil {
		return err
	}
	if output == "yaml" {
		y, err := sigsyaml.JSONToYAML(b)
		if err != nil {
			return err
		}
		_, err = stdout.Write(y)
		return err
	}
	_, err = fmt.Fprintln(stdout, string(b))
	return err
}
