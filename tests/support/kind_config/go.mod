// kind's own configuration code, run for the tests (scripts/go-tool kind_config). The module
// path sits under kind's pkg/cluster so that Go lets it import the internal packages of kind
// that generate and patch the kubeadm configuration.
module sigs.k8s.io/kind/pkg/cluster/kubeadmtsconfig

go 1.24

require sigs.k8s.io/kind v0.32.0

require (
	github.com/BurntSushi/toml v1.4.0 // indirect
	github.com/evanphx/json-patch/v5 v5.6.0 // indirect
	github.com/pelletier/go-toml v1.9.5 // indirect
	github.com/pkg/errors v0.9.1 // indirect
	go.yaml.in/yaml/v3 v3.0.4 // indirect
	sigs.k8s.io/yaml v1.4.0 // indirect
)
