module kubeadm-ts/x509-oracle

go 1.26
