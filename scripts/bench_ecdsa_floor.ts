/**
 * The ECDSA floor for `scripts/bench`: one process doing only the cryptography and file writes
 * that `init phase certs all` (`certs`) or `init phase kubeconfig all` (`kubeconfig`) needs with
 * ECDSA-P256, and nothing else: no configuration, no command line, no certificate encoding
 * beyond a fixed-size to-be-signed blob. It is what any kubeadm on Deno pays at least, so the
 * bench can compare it with upstream's whole run.
 *
 * - certs: 11 P-256 keys (10 certificate keys and the service-account key), 10 signatures by
 *   the right CA key, 21 PEM files plus `sa.pub`, each written to a temp file and renamed.
 * - kubeconfig: the CA key read back and imported, 5 client keys, 5 signatures, 5 files.
 *
 * Keys are made as kubeadm-ts makes them (a random scalar imported as PKCS#8, the public point
 * exported as a JWK), because Deno's first EC generateKey in a process costs 30-40 ms more.
 * Usage: deno run --allow-read=<dir> --allow-write=<dir> scripts/bench_ecdsa_floor.ts certs|kubeconfig <dir>
 *
 * @module
 */

const [phase, dir] = Deno.args;
if ((phase !== "certs" && phase !== "kubeconfig") || !dir) {
  console.error("usage: bench_ecdsa_floor.ts certs|kubeconfig <dir>");
  Deno.exit(2);
}

const algorithm = { name: "ECDSA", namedCurve: "P-256" } as const;
const signing = { name: "ECDSA", hash: "SHA-256" } as const;
// PKCS#8 of a P-256 private key without its public point (RFC 5915 inside RFC 5208).
const pkcs8Prefix = Uint8Array.from([
  0x30,
  0x41,
  0x02,
  0x01,
  0x00,
  0x30,
  0x13,
  0x06,
  0x07,
  0x2a,
  0x86,
  0x48,
  0xce,
  0x3d,
  0x02,
  0x01,
  0x06,
  0x08,
  0x2a,
  0x86,
  0x48,
  0xce,
  0x3d,
  0x03,
  0x01,
  0x07,
  0x04,
  0x27,
  0x30,
  0x25,
  0x02,
  0x01,
  0x01,
  0x04,
  0x20,
]);

function pkcs8Of(scalar: Uint8Array): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(pkcs8Prefix.length + 32);
  out.set(pkcs8Prefix);
  out.set(scalar, pkcs8Prefix.length);
  return out;
}

/** A key as kubeadm-ts makes one, and its PKCS#8 and public point (for the PEM files). */
async function newKey(): Promise<{ key: CryptoKey; der: Uint8Array; point: string }> {
  const scalar = crypto.getRandomValues(new Uint8Array(32));
  scalar[0] &= 0x7f; // below the group order, as a mapping into [1, n-1] would ensure
  const der = pkcs8Of(scalar);
  const key = await crypto.subtle.importKey("pkcs8", der, algorithm, true, ["sign"]);
  const jwk = await crypto.subtle.exportKey("jwk", key);
  return { key, der, point: `${jwk.x}${jwk.y}` };
}

function pem(label: string, der: Uint8Array): string {
  let b64 = "";
  for (let i = 0; i < der.length; i += 0x8000) {
    b64 += btoa(String.fromCharCode(...der.subarray(i, i + 0x8000)));
  }
  return `-----BEGIN ${label}-----\n${b64.replace(/.{64}/g, "$&\n")}\n-----END ${label}-----\n`;
}

async function write(path: string, text: string, mode: number): Promise<void> {
  const tmp = `${path}.tmp`;
  await Deno.writeTextFile(tmp, text, { mode });
  await Deno.rename(tmp, path);
}

/** A certificate-sized blob signed by `issuer`: the signing cost of one certificate. */
async function sign(issuer: CryptoKey, subject: string): Promise<Uint8Array> {
  const tbs = new Uint8Array(600);
  tbs.set(new TextEncoder().encode(subject));
  const signature = new Uint8Array(await crypto.subtle.sign(signing, issuer, tbs));
  const cert = new Uint8Array(tbs.length + signature.length);
  cert.set(tbs);
  cert.set(signature, tbs.length);
  return cert;
}

async function issue(path: string, issuer: CryptoKey | null, subject: string): Promise<CryptoKey> {
  const own = await newKey();
  const cert = await sign(issuer ?? own.key, subject + own.point);
  await write(`${path}.key`, pem("EC PRIVATE KEY", own.der), 0o600);
  await write(`${path}.crt`, pem("CERTIFICATE", cert), 0o644);
  return own.key;
}

if (phase === "certs") {
  await Deno.mkdir(`${dir}/etcd`, { recursive: true });
  const ca = await issue(`${dir}/ca`, null, "kubernetes");
  const frontProxyCa = await issue(`${dir}/front-proxy-ca`, null, "front-proxy-ca");
  const etcdCa = await issue(`${dir}/etcd/ca`, null, "etcd-ca");
  await Promise.all([
    issue(`${dir}/apiserver`, ca, "kube-apiserver"),
    issue(`${dir}/apiserver-kubelet-client`, ca, "kube-apiserver-kubelet-client"),
    issue(`${dir}/front-proxy-client`, frontProxyCa, "front-proxy-client"),
    issue(`${dir}/etcd/server`, etcdCa, "etcd-server"),
    issue(`${dir}/etcd/peer`, etcdCa, "etcd-peer"),
    issue(`${dir}/etcd/healthcheck-client`, etcdCa, "kube-etcd-healthcheck-client"),
    issue(`${dir}/apiserver-etcd-client`, etcdCa, "kube-apiserver-etcd-client"),
  ]);
  const sa = await newKey();
  await write(`${dir}/sa.key`, pem("EC PRIVATE KEY", sa.der), 0o600);
  await write(`${dir}/sa.pub`, pem("PUBLIC KEY", new TextEncoder().encode(sa.point)), 0o644);
} else {
  const text = await Deno.readTextFile(`${dir}/ca.key`);
  const body = text.replace(/-----[^-]+-----|\s/g, "");
  const der = Uint8Array.from(atob(body), (c) => c.charCodeAt(0));
  const ca = await crypto.subtle.importKey("pkcs8", der, algorithm, false, ["sign"]);
  await Promise.all(
    ["admin", "super-admin", "controller-manager", "scheduler", "kubelet"].map(async (name) => {
      const own = await newKey();
      const cert = await sign(ca, name + own.point);
      await write(
        `${dir}/${name}.conf`,
        `client-certificate-data: ${pem("CERTIFICATE", cert)}\nclient-key-data: ${
          pem("EC PRIVATE KEY", own.der)
        }`,
        0o600,
      );
    }),
  );
}
