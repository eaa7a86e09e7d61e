// Command kind-config prints the kubeadm configuration kind writes to a node's
// /kind/kubeadm.conf, made by kind's own code (sigs.k8s.io/kind v0.32.0): the template of
// pkg/cluster/internal/kubeadm for the node's ConfigData, the cluster's kubeadmConfigPatches
// applied by pkg/internal/patch, then the `metadata: {name: config}` the template adds taken
// out again, as kind's create action does before it writes the file.
//
// Input (stdin, JSON): {"data": <kubeadm.ConfigData>, "patches": ["<merge patch YAML>", ...]}.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"sigs.k8s.io/kind/pkg/cluster/internal/kubeadm"
	"sigs.k8s.io/kind/pkg/internal/patch"
)

type input struct {
	Data    kubeadm.ConfigData `json:"data"`
	Patches []string           `json:"patches"`
}

func main() {
	var in input
	dec := json.NewDecoder(os.Stdin)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		fail(err)
	}
	config, err := kubeadm.Config(in.Data)
	if err != nil {
		fail(err)
	}
	patched, err := patch.KubeYAML(config, in.Patches, nil)
	if err != nil {
		fail(err)
	}
	fmt.Print(strings.ReplaceAll(patched, "metadata:\n  name: config\n", ""))
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "kind-config:", err)
	os.Exit(1)
}
