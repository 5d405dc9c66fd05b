// kueue-api-oracle runs Kueue's own API machinery (sigs.k8s.io/kueue, the
// release pinned in go.mod) on Kueue objects, one result per YAML or JSON
// document, one JSON object per output line:
//
//	kueue-api-oracle validate [-f FILE] [--crds DIR]
//	    {"apiVersion","kind","name","namespace","allowed",
//	     "errors":[{"type","field","message"}],"object"}
//	    what kube-apiserver (Kueue's CRDs: defaults, ObjectMeta, schema,
//	    list types, CEL) and Kueue's webhooks (Default, then the validation
//	    of create) make of the object; "object" is the defaulted object in
//	    v1beta2.
//	kueue-api-oracle validate --old OLD [--subresource status] [-f FILE] [--crds DIR]
//	    the same answer for an UPDATE of the i-th document of OLD (the
//	    stored object) to the i-th of FILE: kube-apiserver's update path
//	    (the status of the stored object kept, or with --subresource status
//	    everything else; ObjectMeta's update rules; schema and CEL rules,
//	    transition rules with oldSelf, with ratcheting) and Kueue's
//	    validating webhook's ValidateUpdate where it serves the resource.
//	kueue-api-oracle convert --to v1beta1|v1beta2 [-f FILE]
//	    the object converted with Kueue's conversion functions, or
//	    {"error": "..."}.
//
// FILE defaults to stdin. Go is test infrastructure only; the product stays C.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"k8s.io/klog/v2"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/go-logr/logr"
)

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

func usage() int {
	fmt.Fprintln(os.Stderr, "usage: kueue-api-oracle validate [-f FILE] [--crds DIR] [--old OLD [--subresource status]]\n"+
		"       kueue-api-oracle convert --to v1beta1|v1beta2 [-f FILE]")
	return 2
}

func main() {
	klog.SetLogger(logr.Discard())
	ctrllog.SetLogger(logr.Discard())
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	if len(args) < 1 {
		return usage()
	}
	cmd := args[0]
	fs := flag.NewFlagSet("kueue-api-oracle "+cmd, flag.ContinueOnError)
	file := fs.String("f", "-", "input file (- for stdin)")
	crdDir := fs.String("crds", defaultCRDDir(), "directory with Kueue's CRDs")
	to := fs.String("to", "", "target version of convert: v1beta1 or v1beta2")
	oldFile := fs.String("old", "", "validate: the stored objects, one per document of FILE (an UPDATE)")
	sub := fs.String("subresource", "", "validate --old: \"status\" for an update of /status")
	if err := fs.Parse(args[1:]); err != nil || fs.NArg() != 0 {
		return usage()
	}
	if (*sub != "" && *sub != "status") || (*sub != "" && *oldFile == "") {
		return usage()
	}
	docs, err := readDocs(*file)
	if err != nil {
		fmt.Fprintln(os.Stderr, "kueue-api-oracle:", err)
		return 1
	}
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	switch cmd {
	case "validate":
		crds, err := loadCRDs(*crdDir)
		if err != nil {
			fmt.Fprintln(os.Stderr, "kueue-api-oracle:", err)
			return 1
		}
		if *oldFile == "" {
			for _, d := range docs {
				writeLine(out, validateDoc(crds, d))
			}
			break
		}
		olds, err := readDocs(*oldFile)
		if err == nil && len(olds) != len(docs) {
			err = fmt.Errorf("--old %s: %d documents for %d", *oldFile, len(olds), len(docs))
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "kueue-api-oracle:", err)
			return 1
		}
		for i, d := range docs {
			writeLine(out, validateUpdateDoc(crds, d, olds[i], *sub == "status"))
		}
	case "convert":
		if *to != "v1beta1" && *to != "v1beta2" {
			return usage()
		}
		for _, d := range docs {
			writeLine(out, convertDoc(d, *to))
		}
	default:
		return usage()
	}
	return 0
}

func writeLine(w io.Writer, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(map[string]string{"error": err.Error()})
	}
	w.Write(append(b, '\n'))
}
