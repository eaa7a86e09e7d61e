/**
 * The rotate-ca `node` phase, on every node (workers included, where nothing else of the
 * rotation runs): the kubelet takes the trust the cluster publishes in cluster-info, read
 * anonymously as kubeadm's RBAC allows (its kubelet.conf, and `ca.crt` where this node holds no
 * CA key), gets a client certificate from the current signer when its own is the other CA's
 * (`certs/kubelet_client_cert.ts`) through its own credentials, is restarted when anything
 * changed, and the Node records both in its rotation annotations. Run it on every node after
 * `trust`, after `reissue` and after `finish`; each run converges. A CA only the control plane
 * reads (`--ca front-proxy-ca`, `--ca etcd-ca`) leaves every node's kubelet as it is: the phase
 * says so.
 *
 * @module
 */
import { DISCOVERY_MAX_BODY_BYTES, KubeconfigFile } from "../../constants.ts";
import { KubeadmError } from "../../errors.ts";
import type { Phase } from "../../workflow/phase.ts";
import { restartKubeletAndWait } from "../../kubelet/service.ts";
import { type Certificate, checkSignatureFrom, parseCertificatesPEM } from "../../pki/cert.ts";
import { certificatePin } from "../../pki/pin.ts";
import { utf8 } from "../../text/utf8.ts";
import { lookupContext, parseKubeconfig } from "../../kubeconfig/kubeconfig.ts";
import { KUBECONFIG_FILE_MODE } from "../../kubeconfig/files.ts";
import {
  bundlePins,
  CLIENT_CA_ANNOTATION,
  kubeconfigWithTrust,
  TRUST_ANNOTATION,
} from "../../certs/ca_rotation.ts";
import {
  annotateNode,
  type AnonymousConnection,
  clusterInfoConnection,
  clusterInfoTrust,
} from "../../certs/ca_rotation_cluster.ts";
import { requestKubeletClientCert } from "../../certs/kubelet_client_cert.ts";
import type { RotateCaData } from "./data.ts";

/** The link to the kubelet's current client certificate (in its certificates directory). */
const CURRENT_CLIENT = "kubelet-client-current.pem";

/** The kubelet's file name for a client certificate made at `now` (as its own store names them). */
function clientCertName(now: Date): string {
  return `kubelet-client-${now.toISOString().replace(/\.\d+Z$/, "").replace(/[T:]/g, "-")}.pem`;
}

function restartKubelet(data: RotateCaData): Promise<void> {
  return restartKubeletAndWait({ ...data, kubelet: data.cfg.kubelet });
}

/** The trust cluster-info publishes, read anonymously through `connection` (one deadline). */
async function readClusterInfoTrust(
  data: RotateCaData,
  connection: AnonymousConnection,
): Promise<Certificate[]> {
  const opened = await data.anonymous(connection);
  try {
    return await clusterInfoTrust(opened.value, {
      timeoutMs: data.timeoutMs,
      maxBodyBytes: DISCOVERY_MAX_BODY_BYTES,
    });
  } finally {
    opened.close();
  }
}

/**
 * Converges this node's kubelet to the cluster's published trust and signer (see the module
 * documentation); returns what changed, as lines.
 */
export async function convergeNode(data: RotateCaData): Promise<string[]> {
  const { out, pki } = data;
  const kubeletConf = `${data.kubernetesDir}/${KubeconfigFile.kubelet}`;
  const confBytes = await pki.files.read(kubeletConf);
  if (confBytes === undefined) {
    throw new KubeadmError(`${kubeletConf} does not exist: this node has not joined a cluster`, {
      field: kubeletConf,
    });
  }
  const text = utf8(confBytes);
  const conf = parseKubeconfig(text, kubeletConf, { clientcmd: true });
  const caCrt = await pki.read("ca.crt");
  const bundle = await readClusterInfoTrust(
    data,
    clusterInfoConnection(conf, caCrt ? parseCertificatesPEM(caCrt) : [], kubeletConf),
  );
  const opened = await data.kubelet();
  const changes: string[] = [];
  try {
    const client = opened.value;
    const nextConf = kubeconfigWithTrust(text, bundle, kubeletConf);
    const holdsCA = await pki.hasKey("ca");
    const caFile = { ...pki.certFile("ca", bundle), keepExistingMode: true };
    const caChanged = !holdsCA && utf8(caCrt ?? new Uint8Array()) !== caFile.data;

    // The client certificate: the one kubelet.conf names (the kubelet's rotated file).
    const user = lookupContext(conf).user;
    const certPath = user?.["client-certificate"];
    let clientCA: Certificate | undefined;
    let newClient: string | undefined;
    if (certPath?.endsWith(`/${CURRENT_CLIENT}`)) {
      const current = await pki.files.read(certPath);
      const cert = current ? parseCertificatesPEM(current)[0] : undefined;
      if (cert && await checkSignatureFrom(cert, bundle[0], pki.crypto)) {
        clientCA = bundle[0];
      } else if (cert) {
        if (data.dryRun) {
          changes.push(`would request a kubelet client certificate from the current signer`);
        } else {
          const issued = await requestKubeletClientCert({
            client,
            nodeName: data.nodeName,
            crypto: pki.crypto,
            random: data.random,
            timeoutMs: data.timeoutMs,
          });
          newClient = issued.pem;
          clientCA = (await Promise.all(
            bundle.map(async (ca) =>
              (await checkSignatureFrom(issued.cert, ca, pki.crypto)) ? ca : undefined
            ),
          )).find((ca) => ca);
        }
      }
    } else {
      out.warn(
        `[rotate-ca] ${kubeletConf} does not use the kubelet's rotated client certificate (${CURRENT_CLIENT}): it is left as it is`,
      );
    }

    if (data.dryRun) {
      if (nextConf) {
        changes.push(`would set the CA of ${kubeletConf} to the ${bundle.length} published`);
      }
      if (caChanged) changes.push(`would write ${pki.certPath("ca")}`);
      for (const c of changes) out.info(`[dryrun] ${c}`);
      return changes;
    }
    if (newClient && certPath) {
      const name = clientCertName(data.now);
      await pki.files.write({
        path: certPath.replace(CURRENT_CLIENT, name),
        data: newClient,
        mode: 0o600,
        kind: "key",
      });
      await data.node.symlink(name, certPath);
      changes.push(`the kubelet's client certificate is now signed by the current CA (${name})`);
    }
    if (nextConf) {
      await pki.files.write({
        path: kubeletConf,
        data: nextConf,
        mode: KUBECONFIG_FILE_MODE,
        kind: "kubeconfig",
        keepExistingMode: true,
      });
      changes.push(`${kubeletConf} trusts the ${bundle.length} CA(s) cluster-info publishes`);
    }
    if (caChanged) {
      await pki.files.write(caFile);
      changes.push(`${pki.certPath("ca")} holds the ${bundle.length} CA(s) cluster-info publishes`);
    }
    if (changes.length > 0) {
      out.info("[rotate-ca] Restarting the kubelet");
      await restartKubelet(data);
    }
    const annotations: Record<string, string> = {
      [TRUST_ANNOTATION]: (await bundlePins(bundle, pki.crypto)).join(","),
    };
    if (clientCA) annotations[CLIENT_CA_ANNOTATION] = await certificatePin(clientCA, pki.crypto);
    await annotateNode(client, data.nodeName, annotations);
    for (const c of changes) out.info(`[rotate-ca] ${c}`);
    if (changes.length === 0) {
      out.info("[rotate-ca] The kubelet already has the cluster's trust and signer");
    }
    return changes;
  } finally {
    opened.close();
  }
}

/** The `node` phase. */
export const nodePhase: Phase<RotateCaData> = {
  name: "node",
  short: "Take the cluster's published CA trust and signer into this node's kubelet",
  long:
    "Run on every node (workers too) after trust, after reissue and after finish: sets the CA of kubelet.conf (and ca.crt where the node holds no CA key) to what cluster-info publishes, requests a kubelet client certificate from the current signer when needed, restarts the kubelet and records the result on the Node. A rotation of front-proxy-ca or etcd-ca has nothing for it to do.",
  run: async (data) => {
    if (!data.ca.clusterWide) {
      data.out.info(
        `[rotate-ca] node: nothing to do for ${data.ca.name} on any node: only ${
          data.ca.readers.join(" and ")
        } read it, and the control-plane phases (trust, reissue, finish --ca ${data.ca.name}) restart them; kubelets and workers do not use it`,
      );
      return;
    }
    await convergeNode(data);
  },
};
