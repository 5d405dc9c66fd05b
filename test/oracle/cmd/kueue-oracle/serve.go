package main

// Serve mode: one process answers many runs, so that the fuzzing driver
// (test/oracle/fuzz.py) does not pay the process start and the compilation
// of Kueue's CRD schemas and CEL rules (most of a single run's time) per
// scenario.
//
//	kueue-oracle --serve
//
// Each stdin line is a JSON array of the arguments of one run (as on the
// command line, e.g. ["-o","json","--now","2026-11-21T10:00:00Z","-f","x.yaml"]);
// each answer is one stdout line, a JSON object {"rc":N,"stdout":"...","stderr":"..."}
// holding what that run would have exited with and printed. Runs are
// independent: feature gates a run's Configuration sets are restored after it.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"
)

var (
	crdCache   = map[string]crdSchemas{}
	crdCacheMu sync.Mutex
	// gate -> its value before the current run changed it
	savedGates = map[string]bool{}
)

// loadCRDsOnce compiles each CRD directory's schemas once per process.
func loadCRDsOnce(dir string) (crdSchemas, error) {
	crdCacheMu.Lock()
	defer crdCacheMu.Unlock()
	if c, ok := crdCache[dir]; ok {
		return c, nil
	}
	c, err := loadCRDs(dir)
	if err == nil {
		crdCache[dir] = c
	}
	return c, err
}

// rememberFeatureGates records the values of the gates a run is about to
// set, the first time each is set.
func rememberFeatureGates(gates map[string]bool) {
	for k := range gates {
		if _, ok := savedGates[k]; !ok {
			savedGates[k] = utilfeature.DefaultFeatureGate.Enabled(featuregate.Feature(k))
		}
	}
}

func restoreFeatureGates() {
	if len(savedGates) > 0 {
		_ = utilfeature.DefaultMutableFeatureGate.SetFromMap(savedGates)
	}
	savedGates = map[string]bool{}
}

type serveAnswer struct {
	RC     int    `json:"rc"`
	Stdout string `json:"stdout"`
	Stderr string `json:"stderr"`
}

func serve(in io.Reader, out io.Writer) int {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	w := bufio.NewWriter(out)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var args []string
		var ans serveAnswer
		var o, e bytes.Buffer
		if err := json.Unmarshal(line, &args); err != nil {
			ans = serveAnswer{RC: 2, Stderr: fmt.Sprintf("kueue-oracle: --serve: bad request: %v\n", err)}
		} else {
			stdout, stderr = &o, &e
			ans.RC = run(args)
			restoreFeatureGates()
			ans.Stdout, ans.Stderr = o.String(), e.String()
		}
		b, _ := json.Marshal(ans)
		w.Write(b)
		w.WriteString("\n")
		if err := w.Flush(); err != nil {
			return 1
		}
	}
	return 0
}
