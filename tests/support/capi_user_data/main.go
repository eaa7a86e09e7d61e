// Command capi-user-data renders the cloud-init user-data Cluster API's kubeadm bootstrap
// provider (sigs.k8s.io/cluster-api v1.14.0) gives a machine, with its own code, for the
// tests of kubeadm-ts: what its KubeadmConfig controller does for the first control plane, a
// joining control plane and a worker, minus the Kubernetes API objects it reads them from.
//
// Input (stdin, JSON):
//
//	{"role": "init" | "control-plane-join" | "worker" | "token",
//	 "clusterName": "...", "kubernetesVersion": "v1.37.2", "controlPlaneEndpoint": "host:port",
//	 "podSubnet": "...", "serviceSubnet": "...",
//	 "spec": <KubeadmConfigSpec, cluster.x-k8s.io v1beta2 JSON>,
//	 "certificates": {"ca": {"cert": "PEM", "key": "PEM"}, "sa": ..., "proxy": ..., "etcd": ...},
//	 "token": "<id>.<secret>"}
//
// Output (stdout, JSON): {"userData": "...", "certificates": {...}} for a role (init generates
// the certificates as the controller does and returns them; joins take them), or for "token"
// {"token": "...", "secret": <the bootstrap token Secret the controller creates>}.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/blang/semver/v4"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	bootstrapapi "k8s.io/cluster-bootstrap/token/api"
	bootstraputil "k8s.io/cluster-bootstrap/token/util"
	"k8s.io/utils/ptr"

	bootstrapv1 "sigs.k8s.io/cluster-api/api/bootstrap/kubeadm/v1beta2"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/bootstrap/kubeadm/pkg/cloudinit"
	kubeadmtypes "sigs.k8s.io/cluster-api/bootstrap/kubeadm/pkg/types"
	"sigs.k8s.io/cluster-api/bootstrap/kubeadm/pkg/types/upstream"
	"sigs.k8s.io/cluster-api/util/certs"
	"sigs.k8s.io/cluster-api/util/secret"
)

type keyPair struct {
	Cert string `json:"cert"`
	Key  string `json:"key,omitempty"`
}

type input struct {
	Role                 string                        `json:"role"`
	ClusterName          string                        `json:"clusterName"`
	KubernetesVersion    string                        `json:"kubernetesVersion"`
	ControlPlaneEndpoint string                        `json:"controlPlaneEndpoint"`
	PodSubnet            string                        `json:"podSubnet"`
	ServiceSubnet        string                        `json:"serviceSubnet"`
	Spec                 bootstrapv1.KubeadmConfigSpec `json:"spec"`
	Certificates         map[secret.Purpose]keyPair    `json:"certificates"`
	Token                string                        `json:"token"`
}

type output struct {
	UserData     string                     `json:"userData,omitempty"`
	Certificates map[secret.Purpose]keyPair `json:"certificates,omitempty"`
	Token        string                     `json:"token,omitempty"`
	Secret       *corev1.Secret             `json:"secret,omitempty"`
}

func main() {
	var in input
	dec := json.NewDecoder(os.Stdin)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		fail(err)
	}
	out, err := render(&in)
	if err != nil {
		fail(err)
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		fail(err)
	}
}

func render(in *input) (*output, error) {
	if in.Role == "token" {
		return token()
	}
	version, err := semver.ParseTolerant(in.KubernetesVersion)
	if err != nil {
		return nil, err
	}
	spec := &in.Spec
	base := cloudinit.BaseUserData{
		AdditionalFiles:     spec.Files,
		BootCommands:        spec.BootCommands,
		PreKubeadmCommands:  spec.PreKubeadmCommands,
		PostKubeadmCommands: spec.PostKubeadmCommands,
		KubernetesVersion:   version,
	}
	if spec.Verbosity != nil {
		base.KubeadmVerbosity = fmt.Sprintf("--v %d", *spec.Verbosity)
	}
	switch in.Role {
	case "init":
		// computeClusterConfigurationAndAdditionalData: what the Cluster object adds.
		if spec.ClusterConfiguration.ControlPlaneEndpoint == "" {
			spec.ClusterConfiguration.ControlPlaneEndpoint = in.ControlPlaneEndpoint
		}
		data := &upstream.AdditionalData{
			ClusterName:       ptr.To(in.ClusterName),
			KubernetesVersion: ptr.To(in.KubernetesVersion),
		}
		if in.PodSubnet != "" {
			data.PodSubnet = ptr.To(in.PodSubnet)
		}
		if in.ServiceSubnet != "" {
			data.ServiceSubnet = ptr.To(in.ServiceSubnet)
		}
		cluster, err := kubeadmtypes.MarshalClusterConfigurationForVersion(&spec.ClusterConfiguration, version, data)
		if err != nil {
			return nil, err
		}
		init, err := kubeadmtypes.MarshalInitConfigurationForVersion(&spec.InitConfiguration, version)
		if err != nil {
			return nil, err
		}
		certificates := secret.NewCertificatesForInitialControlPlane(&spec.ClusterConfiguration)
		if err := certificates.Generate(); err != nil {
			return nil, err
		}
		userData, err := cloudinit.NewInitControlPlane(&cloudinit.ControlPlaneInput{
			BaseUserData:         base,
			Certificates:         certificates,
			ClusterConfiguration: cluster,
			InitConfiguration:    init,
		})
		if err != nil {
			return nil, err
		}
		return &output{UserData: string(userData), Certificates: exported(certificates)}, nil
	case "control-plane-join", "worker":
		controlPlane := in.Role == "control-plane-join"
		certificates := secret.NewCertificatesForWorker("")
		if controlPlane {
			certificates = secret.NewControlPlaneJoinCerts(&spec.ClusterConfiguration)
		}
		if err := imported(certificates, in.Certificates); err != nil {
			return nil, err
		}
		join := spec.JoinConfiguration.DeepCopy()
		if controlPlane && join.ControlPlane == nil {
			// As the KubeadmControlPlane controller's desired state: a control plane's join
			// configuration always has a controlPlane section.
			join.ControlPlane = &bootstrapv1.JoinControlPlane{}
		}
		// reconcileDiscovery: the cluster CA's hashes, the Cluster's endpoint, a new token.
		discovery := &join.Discovery.BootstrapToken
		hashes, err := certificates.GetByPurpose(secret.ClusterCA).Hashes()
		if err != nil {
			return nil, err
		}
		discovery.CACertHashes = hashes
		discovery.APIServerEndpoint = in.ControlPlaneEndpoint
		discovery.Token = in.Token
		if !controlPlane {
			// joinWorker: the node starts tainted until Cluster API has initialized it.
			taints := append(ptr.Deref(join.NodeRegistration.Taints, []corev1.Taint{}), clusterv1.NodeUninitializedTaint)
			join.NodeRegistration.Taints = &taints
		}
		joinData, err := kubeadmtypes.MarshalJoinConfigurationForVersion(join, version)
		if err != nil {
			return nil, err
		}
		var userData []byte
		if controlPlane {
			userData, err = cloudinit.NewJoinControlPlane(&cloudinit.ControlPlaneJoinInput{
				BaseUserData:      base,
				Certificates:      certificates,
				BootstrapToken:    in.Token,
				JoinConfiguration: joinData,
			})
		} else {
			userData, err = cloudinit.NewNode(&cloudinit.NodeInput{BaseUserData: base, JoinConfiguration: joinData})
		}
		if err != nil {
			return nil, err
		}
		return &output{UserData: string(userData)}, nil
	}
	return nil, fmt.Errorf("role %q: want init, control-plane-join, worker or token", in.Role)
}

// exported returns the certificates' key pairs by purpose.
func exported(certificates secret.Certificates) map[secret.Purpose]keyPair {
	out := map[secret.Purpose]keyPair{}
	for _, c := range certificates {
		out[c.Purpose] = keyPair{Cert: string(c.KeyPair.Cert), Key: string(c.KeyPair.Key)}
	}
	return out
}

// imported fills the certificates' key pairs from what init generated (the controller reads
// them from the cluster's Secrets).
func imported(certificates secret.Certificates, pairs map[secret.Purpose]keyPair) error {
	for _, c := range certificates {
		p, ok := pairs[c.Purpose]
		if !ok {
			return fmt.Errorf("no %q certificate given", c.Purpose)
		}
		c.KeyPair = &certs.KeyPair{Cert: []byte(p.Cert), Key: []byte(p.Key)}
	}
	return certificates.EnsureAllExist()
}

// token is createToken: a new bootstrap token and the Secret that makes it valid.
func token() (*output, error) {
	token, err := bootstraputil.GenerateBootstrapToken()
	if err != nil {
		return nil, err
	}
	parts := bootstraputil.BootstrapTokenRegexp.FindStringSubmatch(token)
	return &output{Token: token, Secret: &corev1.Secret{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{
			Name:      bootstraputil.BootstrapTokenSecretName(parts[1]),
			Namespace: metav1.NamespaceSystem,
		},
		Type: bootstrapapi.SecretTypeBootstrapToken,
		Data: map[string][]byte{
			bootstrapapi.BootstrapTokenIDKey:               []byte(parts[1]),
			bootstrapapi.BootstrapTokenSecretKey:           []byte(parts[2]),
			bootstrapapi.BootstrapTokenExpirationKey:       []byte(time.Now().UTC().Add(15 * time.Minute).Format(time.RFC3339)),
			bootstrapapi.BootstrapTokenUsageSigningKey:     []byte("true"),
			bootstrapapi.BootstrapTokenUsageAuthentication: []byte("true"),
			bootstrapapi.BootstrapTokenExtraGroupsKey:      []byte("system:bootstrappers:kubeadm:default-node-token"),
			bootstrapapi.BootstrapTokenDescriptionKey:      []byte("token generated by cluster-api-bootstrap-provider-kubeadm"),
		},
	}}, nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "capi-user-data:", err)
	os.Exit(1)
}
