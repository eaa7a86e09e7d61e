/**
 * Views of certificates, keys and kubeconfigs through the real `openssl`, with what differs
 * from run to run (serials, times, key bits) removed: what golden tests compare field by field
 * between upstream kubeadm's files and ours.
 *
 * @module
 */
import { parseKubeYamlOne } from "../../core/yaml/kube_yaml.ts";
import assert from "node:assert/strict";
import { openssl, runTool } from "./openssl.ts";

/** openssl's view of a certificate with the per-run values (serial, times, key bits) removed. */
export async function certView(path: string): Promise<string> {
  const text = await openssl(["x509", "-in", path, "-noout", "-text"]);
  return text.split("\n")
    .filter((l) => !/^\s+([0-9a-fA-F]{2}:)+[0-9a-fA-F]{0,2}\s*$/.test(l)) // hex dumps
    .map((l) =>
      l.replace(/Serial Number:.*/, "Serial Number: <serial>")
        .replace(/(Not (Before|After)\s*):.*/, "$1: <time>")
    )
    .filter((l) => !/^\s+[0-9a-f:]{40,}$/i.test(l))
    .join("\n");
}

/** NotAfter − NotBefore in seconds. */
export async function validitySeconds(path: string): Promise<number> {
  const t = await openssl(["x509", "-in", path, "-noout", "-startdate", "-enddate"]);
  const [nb, na] = t.trim().split("\n").map((l) => Date.parse(l.split("=")[1]));
  return Math.round((na - nb) / 1000);
}

/** A key's PEM type, algorithm and size (or curve). */
export async function keyView(path: string): Promise<string> {
  const pem = await Deno.readTextFile(path);
  const type = pem.match(/-----BEGIN ([A-Z ]+)-----/)![1];
  const text = await openssl(["pkey", "-in", path, "-noout", "-text"]);
  return `${type}: ${text.split("\n")[0]} ${text.match(/ASN1 OID: \S+/)?.[0] ?? ""}`;
}

/** A kubeconfig with its embedded certificates as subject/issuer and its keys as {@link keyView}. */
export async function kubeconfigView(path: string): Promise<unknown> {
  const cfg = parseKubeYamlOne(await Deno.readTextFile(path)) as Record<string, unknown>;
  const dir = await Deno.makeTempDir();
  try {
    const summarise = async (b64: string, kind: "cert" | "key") => {
      const f = `${dir}/x.pem`;
      await Deno.writeTextFile(f, atob(b64));
      if (kind === "key") return await keyView(f);
      return (await openssl(["x509", "-in", f, "-noout", "-subject", "-issuer"])).trim();
    };
    const walk = async (v: unknown): Promise<unknown> => {
      if (Array.isArray(v)) return Promise.all(v.map(walk));
      if (v && typeof v === "object") {
        const o: Record<string, unknown> = {};
        for (const [k, x] of Object.entries(v)) {
          if (k === "certificate-authority-data" || k === "client-certificate-data") {
            o[k] = await summarise(x as string, "cert");
          } else if (k === "client-key-data") o[k] = await summarise(x as string, "key");
          else o[k] = await walk(x);
        }
        return o;
      }
      return v;
    };
    return await walk(cfg);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** openssl: the certificate verifies against its CA and its public key is the key's. */
export async function assertPairedAndSigned(cert: string, key: string, ca: string): Promise<void> {
  const verify = await runTool("openssl", ["verify", "-CAfile", ca, cert]);
  assert.equal(verify.code, 0, `${cert}: ${verify.stdout}${verify.stderr}`);
  const fromCert = await openssl(["x509", "-in", cert, "-noout", "-pubkey"]);
  const fromKey = await openssl(["pkey", "-in", key, "-pubout"]);
  assert.equal(fromCert, fromKey, `${cert} matches ${key}`);
}
