import assert from "node:assert/strict";
import {
  controlPlaneImageRepository,
  dnsImage,
  etcdImage,
  kubernetesImage,
  pauseImage,
} from "../../../core/manifests/images.ts";

const base = { imageRepository: "registry.k8s.io", kubernetesVersion: "v1.37.2" };

Deno.test("kubernetesImage() uses imageRepository and the version as tag", () => {
  assert.equal(kubernetesImage("kube-apiserver", base), "registry.k8s.io/kube-apiserver:v1.37.2");
  assert.equal(
    kubernetesImage("kube-scheduler", {
      imageRepository: "my.reg/k8s",
      kubernetesVersion: "v1.36.3+abc",
    }),
    "my.reg/k8s/kube-scheduler:v1.36.3_abc",
  );
});

Deno.test("kubernetesImage() uses the CI registry for ci/ versions on the default registry only", () => {
  const ci = {
    imageRepository: "registry.k8s.io",
    kubernetesVersion: "ci/v1.38.0-alpha.0.12+abcdef",
  };
  assert.equal(controlPlaneImageRepository(ci), "gcr.io/k8s-staging-ci-images");
  assert.equal(
    kubernetesImage("kube-apiserver", ci),
    "gcr.io/k8s-staging-ci-images/kube-apiserver:v1.38.0-alpha.0.12_abcdef",
  );
  assert.equal(controlPlaneImageRepository({ ...ci, imageRepository: "my.reg" }), "my.reg");
  assert.equal(pauseImage(ci), "registry.k8s.io/pause:3.10.2");
});

Deno.test("etcdImage() takes the target minor's etcd: 3.7.0-0 for v1.36, v1.37 and beyond", () => {
  // upstream kubeadm v1.37.2 `config images list` for v1.37.2, v1.36.3 and v1.38.0.
  for (const v of ["v1.37.2", "v1.36.3", "v1.38.0"]) {
    assert.equal(etcdImage({ ...base, kubernetesVersion: v }), "registry.k8s.io/etcd:3.7.0-0", v);
  }
});

Deno.test("etcdImage() honours etcd.local imageRepository and imageTag", () => {
  assert.equal(
    etcdImage({
      ...base,
      etcd: { local: { imageRepository: "quay.io/coreos", imageTag: "v3.6.1" } },
    }),
    "quay.io/coreos/etcd:v3.6.1",
  );
});

Deno.test("dnsImage() nests coredns under the default registry only", () => {
  assert.equal(dnsImage(base), "registry.k8s.io/coredns/coredns:v1.14.6");
  assert.equal(dnsImage({ ...base, imageRepository: "my.reg" }), "my.reg/coredns:v1.14.6");
  assert.equal(
    dnsImage({ ...base, dns: { imageRepository: "dns.reg", imageTag: "v9" } }),
    "dns.reg/coredns:v9",
  );
});
