/**
 * `ExternalEtcdVersion`: every external etcd HTTP endpoint (`httpEndpoints`, defaulted from
 * `endpoints`) must run a version this kubeadm supports.
 *
 * Each endpoint's `/version` is fetched (10 s timeout, up to three retries 5 s apart on
 * connection errors and 5xx answers), with the TLS material from `etcd.external`.
 *
 * @module
 */
import type { ExternalEtcd } from "../../config/types.ts";
import { compareSemVer, parseSemVer } from "../../config/version.ts";
import { errorMessage, KubeadmError } from "../../errors.ts";
import { MIN_EXTERNAL_ETCD_VERSION } from "../../versions.ts";
import { type Check, pass } from "../check.ts";
import type { HttpResult, TlsClientMaterial } from "../../ports/http.ts";
import type { Machine } from "../../ports/machine.ts";

const REQUEST_TIMEOUT_MS = 10_000;
const REQUEST_RETRIES = 3;
const RETRY_INTERVAL_MS = 5_000;

function normalizeVersionURL(endpoint: string): string {
  const url = new URL(`${endpoint}/version`);
  url.pathname = url.pathname.replaceAll("//", "/");
  return url.toString();
}

async function getWithRetries(
  host: Machine,
  url: string,
  tls: TlsClientMaterial,
): Promise<HttpResult> {
  let lastError: unknown;
  for (let attempt = 0; attempt <= REQUEST_RETRIES; attempt++) {
    if (attempt > 0) await host.sleep(RETRY_INTERVAL_MS);
    let res: HttpResult;
    try {
      res = await host.httpGet(url, tls, REQUEST_TIMEOUT_MS);
    } catch (e) {
      lastError = new KubeadmError(`Get ${JSON.stringify(url)}: ${errorMessage(e)}`);
      continue;
    }
    if (res.status >= 500 && res.status <= 599) {
      lastError = new KubeadmError(
        `server responded with non-successful status: ${res.statusText}`,
      );
      continue;
    }
    return res;
  }
  throw lastError;
}

/** Checks the version at each external etcd HTTP endpoint; passes when none is configured. */
export function externalEtcdVersionCheck(etcd: ExternalEtcd | undefined): Check {
  return {
    name: "ExternalEtcdVersion",
    severity: "error",
    async run(host, log) {
      log?.(1, "external_etcd.ts", "validating the external etcd version");
      const endpoints = etcd?.httpEndpoints ?? [];
      if (!etcd || endpoints.length === 0) return pass();
      const out = pass();
      const tls: TlsClientMaterial = {};
      if (etcd.caFile) {
        const ca = await host.files.read(etcd.caFile);
        if (ca === undefined) {
          out.errors.push(
            `couldn't load external etcd's server certificate ${etcd.caFile}: open ${etcd.caFile}: no such file or directory`,
          );
          return out;
        }
        tls.caPem = new TextDecoder().decode(ca);
      }
      if (etcd.certFile && etcd.keyFile) {
        const cert = await host.files.read(etcd.certFile);
        const key = await host.files.read(etcd.keyFile);
        if (cert === undefined || key === undefined) {
          const missing = cert === undefined ? etcd.certFile : etcd.keyFile;
          out.errors.push(
            `couldn't load external etcd's certificate and key pair ${etcd.certFile}, ${etcd.keyFile}: open ${missing}: no such file or directory`,
          );
          return out;
        }
        tls.certPem = new TextDecoder().decode(cert);
        tls.keyPem = new TextDecoder().decode(key);
      }
      const min = parseSemVer(MIN_EXTERNAL_ETCD_VERSION)!;
      for (const endpoint of endpoints) {
        let url: string;
        try {
          url = normalizeVersionURL(endpoint);
        } catch (e) {
          out.errors.push(`failed to parse external etcd endpoint ${endpoint}: ${errorMessage(e)}`);
          continue;
        }
        let body: { etcdserver?: unknown };
        try {
          body = JSON.parse((await getWithRetries(host, url, tls)).body);
        } catch (e) {
          out.errors.push(errorMessage(e));
          continue;
        }
        const server = typeof body?.etcdserver === "string" ? body.etcdserver : "";
        const version = parseSemVer(server);
        if (!version) {
          out.errors.push(
            `couldn't parse external etcd version ${JSON.stringify(server)}: could not parse ${
              JSON.stringify(server)
            } as version`,
          );
          continue;
        }
        if (compareSemVer(version, min) < 0) {
          out.errors.push(
            `this version of kubeadm only supports external etcd version >= ${MIN_EXTERNAL_ETCD_VERSION}. Current version: ${server}`,
          );
        }
      }
      return out;
    },
  };
}
