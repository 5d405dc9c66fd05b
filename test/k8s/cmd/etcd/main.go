// Command etcd is etcd's own main (go.etcd.io/etcd/v3's main.go), built here
// against the etcd server module that k8s.io/kubernetes itself pins, so that
// one go.sum covers the whole control plane.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
