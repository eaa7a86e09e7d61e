import { webCryptoPort } from "../../../adapters/crypto/webcrypto.ts";
import assert from "node:assert/strict";
import {
  flattenJoinCommand,
  initSuccessMessage,
  joinCommand,
  joinCommandFromKubeconfig,
  printLines,
} from "../../../core/cluster/join_command.ts";
import type { Kubeconfig } from "../../../core/kubeconfig/kubeconfig.ts";
import { RecordingPrinter } from "../../support/recording_printer.ts";

const CERT1 = Deno.readTextFileSync(new URL("./testdata/pin-test-cert.pem", import.meta.url));
const CERT2 = Deno.readTextFileSync(new URL("./testdata/pin-test-cert2.pem", import.meta.url));
const PIN1 = "sha256:345959acb2c3b2feb87d281961c893f62a314207ef02599f1cc4a5fb255480b3";
const PIN2 = "sha256:d1ef16989563fe7775f81a7dc55ce16a467ca9baedae2d081cb0a068b6a81971";
const TOKEN = "abcdef.0123456789abcdef";
const KEY = "f".repeat(64);

Deno.test("worker join command: tab continuation and trailing space after each pin", () => {
  const cmd = joinCommand({ server: "https://10.0.0.1:6443", caPins: [PIN1, PIN2], token: TOKEN });
  assert.equal(
    cmd,
    `kubeadm join 10.0.0.1:6443 --token ${TOKEN} \\\n\t--discovery-token-ca-cert-hash ${PIN1} --discovery-token-ca-cert-hash ${PIN2} `,
  );
  assert.equal(
    flattenJoinCommand(cmd),
    `kubeadm join 10.0.0.1:6443 --token ${TOKEN} --discovery-token-ca-cert-hash ${PIN1} --discovery-token-ca-cert-hash ${PIN2} `,
  );
});

Deno.test("control-plane join command with key, without key, and withheld values", () => {
  const base = { server: "https://cp.example:6443", caPins: [PIN1], token: TOKEN };
  assert.equal(
    joinCommand({ ...base, controlPlane: true, certificateKey: KEY }),
    `kubeadm join cp.example:6443 --token ${TOKEN} \\\n\t--discovery-token-ca-cert-hash ${PIN1} \\\n\t--control-plane --certificate-key ${KEY}`,
  );
  assert.equal(
    joinCommand({ ...base, controlPlane: true }),
    `kubeadm join cp.example:6443 --token ${TOKEN} \\\n\t--discovery-token-ca-cert-hash ${PIN1} \\\n\t--control-plane `,
  );
  const withheld = joinCommand({
    ...base,
    controlPlane: true,
    certificateKey: KEY,
    skipTokenPrint: true,
    skipCertificateKeyPrint: true,
  });
  assert.ok(withheld.includes("--token <value withheld> \\"));
  assert.ok(withheld.endsWith("--certificate-key <value withheld>"));
  assert.ok(!withheld.includes(TOKEN) && !withheld.includes(KEY));
});

Deno.test("join command from an admin kubeconfig pins every CA certificate (upstream pin vectors)", async () => {
  const admin: Kubeconfig = {
    apiVersion: "v1",
    kind: "Config",
    preferences: {},
    clusters: [{
      name: "kubernetes",
      cluster: {
        server: "https://192.168.0.10:6443",
        "certificate-authority-data": btoa(CERT1 + CERT2),
      },
    }],
    contexts: [{ name: "a@k", context: { cluster: "kubernetes", user: "a" } }],
    "current-context": "a@k",
    users: [{ name: "a", user: {} }],
  };
  const cmd = await joinCommandFromKubeconfig(admin, { token: TOKEN }, webCryptoPort);
  assert.equal(
    cmd,
    `kubeadm join 192.168.0.10:6443 --token ${TOKEN} \\\n\t--discovery-token-ca-cert-hash ${PIN1} --discovery-token-ca-cert-hash ${PIN2} `,
  );
  delete admin.clusters![0].cluster["certificate-authority-data"];
  await assert.rejects(
    () => joinCommandFromKubeconfig(admin, { token: TOKEN }, webCryptoPort),
    /no CA certificates found in kubeconfig/,
  );
});

const HEAD = `
Your Kubernetes control-plane has initialized successfully!

To start using your cluster, you need to run the following as a regular user:

  mkdir -p $HOME/.kube
  sudo cp -i /etc/kubernetes/admin.conf $HOME/.kube/config
  sudo chown $(id -u):$(id -g) $HOME/.kube/config

Alternatively, if you are the root user, you can run:

  export KUBECONFIG=/etc/kubernetes/admin.conf

You should now deploy a pod network to the cluster.
Run "kubectl apply -f [podnetwork].yaml" with one of the options listed at:
  https://kubernetes.io/docs/concepts/cluster-administration/addons/

`;

Deno.test("init success message without a control-plane endpoint", () => {
  const worker = joinCommand({ server: "https://10.0.0.1:6443", caPins: [PIN1], token: TOKEN });
  const msg = initSuccessMessage({
    kubeconfigPath: "/etc/kubernetes/admin.conf",
    controlPlaneEndpoint: false,
    uploadCerts: false,
    joinWorkerCommand: worker,
    joinControlPlaneCommand: "unused",
  });
  assert.equal(
    msg,
    HEAD +
      `Then you can join any number of worker nodes by running the following on each as root:

kubeadm join 10.0.0.1:6443 --token ${TOKEN} \\
\t--discovery-token-ca-cert-hash ${PIN1} 
`,
  );
});

Deno.test("init success message with endpoint and --upload-certs, or without", () => {
  const base = { server: "https://lb:6443", caPins: [PIN1], token: TOKEN };
  const worker = joinCommand(base);
  const cp = joinCommand({ ...base, controlPlane: true, certificateKey: KEY });
  const up = initSuccessMessage({
    kubeconfigPath: "/etc/kubernetes/admin.conf",
    controlPlaneEndpoint: true,
    uploadCerts: true,
    joinWorkerCommand: worker,
    joinControlPlaneCommand: cp,
  });
  assert.equal(
    up,
    HEAD +
      `You can now join any number of control-plane nodes running the following command on each as root:

  kubeadm join lb:6443 --token ${TOKEN} \\
\t--discovery-token-ca-cert-hash ${PIN1} \\
\t--control-plane --certificate-key ${KEY}

Please note that the certificate-key gives access to cluster sensitive data, keep it secret!
As a safeguard, uploaded-certs will be deleted in two hours; If necessary, you can use
"kubeadm init phase upload-certs --upload-certs" to reload certs afterward.

Then you can join any number of worker nodes by running the following on each as root:

kubeadm join lb:6443 --token ${TOKEN} \\
\t--discovery-token-ca-cert-hash ${PIN1} 
`,
  );
  const copy = initSuccessMessage({
    kubeconfigPath: "/root/admin.conf",
    controlPlaneEndpoint: true,
    uploadCerts: false,
    joinWorkerCommand: worker,
    joinControlPlaneCommand: joinCommand({ ...base, controlPlane: true }),
  });
  assert.ok(copy.includes("  sudo cp -i /root/admin.conf $HOME/.kube/config\n"));
  assert.ok(copy.includes(
    "You can now join any number of control-plane nodes by copying certificate authorities\nand service account keys on each node and then running the following as root:\n\n  kubeadm join lb:6443",
  ));
  assert.ok(copy.includes("--control-plane \n\nThen you can join"));
});

Deno.test("printLines prints one line per call and keeps trailing spaces", () => {
  const out = new RecordingPrinter();
  printLines(out, "a \n\nb\n");
  assert.deepEqual(out.lines, ["a ", "", "b"]);
});
