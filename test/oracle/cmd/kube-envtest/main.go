// Command kube-envtest starts the control plane Kueue's performance runner
// starts for itself (controller-runtime's envtest: etcd and kube-apiserver
// from KUBEBUILDER_ASSETS, Kueue's CRDs installed, the request limits the
// runner raises), writes an admin kubeconfig and waits for SIGTERM or
// SIGINT, then stops it.  `make bench-vs-kueue` runs Turnstile's side of
// the comparison against it, so both measure on the same kind of control
// plane.
//
// Test tooling only; the product is C.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

func main() {
	crds := flag.String("crds", "", "directory of the CRDs to install")
	out := flag.String("kubeconfig-out", "", "write the admin kubeconfig here")
	flag.Parse()
	if *crds == "" || *out == "" {
		fmt.Fprintln(os.Stderr, "usage: kube-envtest --crds DIR --kubeconfig-out FILE")
		os.Exit(2)
	}
	env := &envtest.Environment{CRDDirectoryPaths: []string{*crds}, ErrorIfCRDPathMissing: true}
	// the same raised limits as Kueue's runner (test/performance/scheduler/runner/main.go)
	env.ControlPlane.GetAPIServer().Configure().
		Append("max-requests-inflight", "800").
		Append("max-mutating-requests-inflight", "400")
	cfg, err := env.Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, "kube-envtest: start:", err)
		os.Exit(1)
	}
	code := 0
	kc := clientcmdapi.NewConfig()
	kc.Clusters["envtest"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
	kc.AuthInfos["admin"] = &clientcmdapi.AuthInfo{
		ClientCertificateData: cfg.CertData, ClientKeyData: cfg.KeyData, Token: cfg.BearerToken}
	kc.Contexts["envtest"] = &clientcmdapi.Context{Cluster: "envtest", AuthInfo: "admin"}
	kc.CurrentContext = "envtest"
	tmp := *out + ".tmp"
	if err := clientcmd.WriteToFile(*kc, tmp); err != nil {
		fmt.Fprintln(os.Stderr, "kube-envtest: kubeconfig:", err)
		code = 1
	} else if err := os.Rename(tmp, *out); err != nil { // appears whole, once the server serves
		fmt.Fprintln(os.Stderr, "kube-envtest: kubeconfig:", err)
		code = 1
	} else {
		fmt.Println("kube-envtest: serving at", cfg.Host)
		sig := make(chan os.Signal, 2)
		signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
		<-sig
	}
	if err := env.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "kube-envtest: stop:", err)
		code = 1
	}
	os.Exit(code)
}
