package main

// Reading the scenario YAML the way `turnstilectl simulate` and the API
// server would: multi-document YAML, CRD defaults and schema validation from
// Kueue's own CustomResourceDefinitions, Kueue's webhook validation, and
// v1beta1 objects converted to v1beta2 with Kueue's conversion functions.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	apiextvalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"sigs.k8s.io/controller-runtime/pkg/conversion"
	sigsyaml "sigs.k8s.io/yaml"

	"turnstile.dev/test/oracle/internal/crdschema"

	kueuev1beta1 "sigs.k8s.io/kueue/apis/kueue/v1beta1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	"sigs.k8s.io/kueue/pkg/webhooks"
)

// doc is one YAML document of an input file.
type doc struct {
	file string
	line int
	raw  map[string]any
}

func (d *doc) str(key string) string {
	s, _ := d.raw[key].(string)
	return s
}

// readDocs splits a multi-document YAML file; each document's first line is
// kept for error messages as simulate prints them.
func readDocs(file string) ([]doc, error) {
	var r io.Reader
	if file == "-" {
		r = os.Stdin
	} else {
		f, err := os.Open(file)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	yr := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var out []doc
	line := 1
	for {
		b, err := yr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		start := line
		line += bytes.Count(b, []byte("\n"))
		// the first non-comment, non-separator line is where the document starts
		for _, l := range strings.Split(string(b), "\n") {
			t := strings.TrimSpace(l)
			if t == "" || strings.HasPrefix(t, "#") || t == "---" {
				start++
				continue
			}
			break
		}
		j, err := sigsyaml.YAMLToJSON(b)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", file, start, err)
		}
		var m map[string]any
		// integers as int64, as the API server decodes them (CEL rules
		// check types)
		if err := utiljson.Unmarshal(j, &m); err != nil || m == nil {
			continue // empty document
		}
		out = append(out, doc{file: file, line: start, raw: m})
	}
	return out, nil
}

// crdSchemas: Kueue's CRDs, per kind and version (internal/crdschema).
type crdSchemas = crdschema.Schemas

func loadCRDs(dir string) (crdSchemas, error) { return crdschema.Load(dir) }

// defaultAndValidate applies the CRD's defaults to a raw object (as the API
// server does on create) and returns the schema and CEL errors.
func defaultAndValidate(c crdSchemas, kind, version string, raw map[string]any) field.ErrorList {
	v := c[kind][version]
	if v == nil {
		return nil
	}
	structuraldefaulting.Default(raw, v.Structural)
	errs := apiextvalidation.ValidateCustomResource(nil, raw, v.Validator)
	if v.CEL != nil {
		celErrs, _ := v.CEL.Validate(context.Background(), nil, v.Structural, raw, nil, celconfig.RuntimeCELCostBudget)
		errs = append(errs, celErrs...)
	}
	return errs
}

// objects is everything a scenario declares, in v1beta2.
type objects struct {
	flavors    []*kueue.ResourceFlavor
	cohorts    []*kueue.Cohort
	cqs        []*kueue.ClusterQueue
	checks     []*kueue.AdmissionCheck
	lqs        []*kueue.LocalQueue
	wpcs       []*kueue.WorkloadPriorityClass
	namespaces []*corev1.Namespace
	workloads  []*kueue.Workload // in input order
	scenario   *doc
	config     map[string]any // a Configuration document or the Scenario's configuration
	seq        int            // as simulate: orders objects without a creationTimestamp
}

// decodeInto converts the raw (defaulted) object into out (v1beta2); a
// v1beta1 object goes through Kueue's conversion (old), or, for kinds whose
// CRD converts with strategy None (old == nil), is read as is.
func decodeInto(raw map[string]any, version string, out any, old conversion.Convertible) error {
	b, err := json.Marshal(raw)
	if err != nil {
		return err
	}
	if version == "v1beta1" && old != nil {
		if err := json.Unmarshal(b, old); err != nil {
			return err
		}
		return old.ConvertTo(out.(conversion.Hub))
	}
	return json.Unmarshal(b, out)
}

// add decodes one document; an error is what simulate would print for it.
func (o *objects) add(d *doc, crds crdSchemas) error {
	apiVersion, kind := d.str("apiVersion"), d.str("kind")
	group, version := "", apiVersion
	if i := strings.LastIndex(apiVersion, "/"); i >= 0 {
		group, version = apiVersion[:i], apiVersion[i+1:]
	}
	name := ""
	if md, ok := d.raw["metadata"].(map[string]any); ok {
		name, _ = md["name"].(string)
	}
	what := fmt.Sprintf("%s %q", kind, name)
	switch {
	case kind == "Scenario":
		o.scenario = d
		if c, ok := d.raw["configuration"].(map[string]any); ok {
			o.config = c
		}
		return nil
	case kind == "Configuration" && strings.HasPrefix(apiVersion, "config.kueue.x-k8s.io/"):
		o.config = d.raw
		return nil
	case kind == "Namespace" && apiVersion == "v1":
		var ns corev1.Namespace
		b, _ := json.Marshal(d.raw)
		if err := json.Unmarshal(b, &ns); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		o.namespaces = append(o.namespaces, &ns)
		return nil
	case group != kueue.GroupVersion.Group || (version != "v1beta2" && version != "v1beta1"):
		return fmt.Errorf("unsupported object: apiVersion %q, kind %q", apiVersion, kind)
	}
	if errs := defaultAndValidate(crds, kind, version, d.raw); len(errs) > 0 {
		return fmt.Errorf("%s is invalid: %s", what, errs.ToAggregate().Error())
	}
	var errs field.ErrorList
	switch kind {
	case "ResourceFlavor":
		rf := &kueue.ResourceFlavor{}
		err := decodeInto(d.raw, version, rf, nil)
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		if errs = webhooks.ValidateResourceFlavor(rf); len(errs) == 0 {
			o.flavors = append(o.flavors, rf)
		}
	case "Cohort":
		co := &kueue.Cohort{}
		err := decodeInto(d.raw, version, co, &kueuev1beta1.Cohort{})
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		if errs = webhooksValidateCohort(co); len(errs) == 0 {
			o.cohorts = append(o.cohorts, co)
		}
	case "ClusterQueue":
		cq := &kueue.ClusterQueue{}
		err := decodeInto(d.raw, version, cq, &kueuev1beta1.ClusterQueue{})
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		if errs = webhooks.ValidateClusterQueue(cq); len(errs) == 0 {
			o.cqs = append(o.cqs, cq)
		}
	case "AdmissionCheck":
		// its status is kept: the check's controller sets Active, and
		// the ClusterQueues naming it are active only then
		ac := &kueue.AdmissionCheck{}
		err := decodeInto(d.raw, version, ac, nil)
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		o.checks = append(o.checks, ac)
	case "LocalQueue":
		lq := &kueue.LocalQueue{}
		err := decodeInto(d.raw, version, lq, &kueuev1beta1.LocalQueue{})
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		if lq.Namespace == "" {
			lq.Namespace = "default"
		}
		o.lqs = append(o.lqs, lq)
	case "WorkloadPriorityClass":
		wpc := &kueue.WorkloadPriorityClass{}
		err := decodeInto(d.raw, version, wpc, nil)
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		o.wpcs = append(o.wpcs, wpc)
	case "Workload":
		wl := &kueue.Workload{}
		err := decodeInto(d.raw, version, wl, &kueuev1beta1.Workload{})
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		if errs = webhooks.ValidateWorkload(wl); len(errs) == 0 {
			o.addWorkload(wl)
		}
	default:
		return fmt.Errorf("unsupported object: apiVersion %q, kind %q", apiVersion, kind)
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s is invalid: %s", what, errs.ToAggregate().Error())
	}
	return nil
}

// addWorkload fills what the API server would, the way simulate does
// (pkg/sim/sim.c add_workload): namespace, a deterministic UUID-shaped uid
// and, for objects without one, a creation time in input order. simulate
// uses "now" plus the input position in nanoseconds; the fake client keeps
// whole seconds only, and Kueue's scheduler sorts the heads of a cycle by
// timestamp with no further tie-break (scheduler.go makeClassicalIterator),
// so equal times would make the order of two ClusterQueues' heads random:
// the oracle uses "now" plus the input position in seconds.
func (o *objects) addWorkload(wl *kueue.Workload) {
	if wl.Namespace == "" {
		wl.Namespace = "default"
	}
	for i, old := range o.workloads { // a later document replaces an earlier one
		if old.Namespace == wl.Namespace && old.Name == wl.Name {
			o.workloads = append(o.workloads[:i], o.workloads[i+1:]...)
			break
		}
	}
	if wl.UID == "" {
		wl.UID = typesUID(fmt.Sprintf("00000000-0000-4000-9000-%012d", o.seq))
	}
	if wl.CreationTimestamp.IsZero() {
		wl.CreationTimestamp = metav1.NewTime(theNow.Add(time.Duration(o.seq) * time.Second))
		o.seq++
	}
	if wl.Generation == 0 {
		wl.Generation = 1
	}
	o.workloads = append(o.workloads, wl)
}

// allNamespaces: the declared ones plus every namespace a queue or
// workload lives in, each with the kubernetes.io/metadata.name label the
// API server adds.
func (o *objects) allNamespaces() []*corev1.Namespace {
	seen := map[string]*corev1.Namespace{}
	var names []string
	add := func(n string) {
		if _, ok := seen[n]; !ok {
			ns := &corev1.Namespace{}
			ns.Name = n
			seen[n] = ns
			names = append(names, n)
		}
	}
	for _, ns := range o.namespaces {
		add(ns.Name)
		seen[ns.Name] = ns.DeepCopy()
	}
	for _, lq := range o.lqs {
		add(lq.Namespace)
	}
	for _, wl := range o.workloads {
		add(wl.Namespace)
	}
	sort.Strings(names)
	out := make([]*corev1.Namespace, 0, len(names))
	for _, n := range names {
		ns := seen[n]
		if ns.Labels == nil {
			ns.Labels = map[string]string{}
		}
		ns.Labels[corev1.LabelMetadataName] = n
		out = append(out, ns)
	}
	return out
}
