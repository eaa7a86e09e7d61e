import assert from "node:assert/strict";
import {
  controlPlaneImageRepository,
  dnsImage,
  etcdImage,
  kubernetesImage,
  pauseImage,
  supportedEtcdVersion,
} from "../../../core/manifests/images.ts";

const base = { imageRepository: "registry.k8s.io", kubernetesVersion: "v1.34.4" };

Deno.test("kubernetesImage() uses imageRepository and the version as tag", () => {
  assert.equal(kubernetesImage("kube-apiserver", base), "registry.k8s.io/kube-apiserver:v1.34.4");
  assert.equal(
    kubernetesImage("kube-scheduler", {
      imageRepository: "my.reg/k8s",
      kubernetesVersion: "v1.34.4+abc",
    }),
    "my.reg/k8s/kube-scheduler:v1.34.4_abc",
  );
});

Deno.test("kubernetesImage() uses the CI registry for ci/ versions on the default registry only", () => {
  const ci = {
    imageRepository: "registry.k8s.io",
    kubernetesVersion: "ci/v1.35.0-alpha.0.12+abcdef",
  };
  assert.equal(controlPlaneImageRepository(ci), "gcr.io/k8s-staging-ci-images");
  assert.equal(
    kubernetesImage("kube-apiserver", ci),
    "gcr.io/k8s-staging-ci-images/kube-apiserver:v1.35.0-alpha.0.12_abcdef",
  );
  assert.equal(controlPlaneImageRepository({ ...ci, imageRepository: "my.reg" }), "my.reg");
  assert.equal(pauseImage(ci), "registry.k8s.io/pause:3.10.1");
});

Deno.test("etcdImage() maps the Kubernetes minor to the supported etcd version", () => {
  assert.equal(etcdImage(base), "registry.k8s.io/etcd:3.6.5-0");
  assert.equal(supportedEtcdVersion("v1.33.2"), "3.5.24-0");
  assert.equal(supportedEtcdVersion("v1.20.0"), "3.5.24-0", "below the map: smallest key");
  assert.equal(supportedEtcdVersion("v1.40.0"), "3.6.5-0", "above the map: largest key");
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
  assert.equal(dnsImage(base), "registry.k8s.io/coredns/coredns:v1.12.1");
  assert.equal(dnsImage({ ...base, imageRepository: "my.reg" }), "my.reg/coredns:v1.12.1");
  assert.equal(
    dnsImage({ ...base, dns: { imageRepository: "dns.reg", imageTag: "v9" } }),
    "dns.reg/coredns:v9",
  );
});
