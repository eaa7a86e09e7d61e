/**
 * `kubeadm certs check-expiration` as data: the `CertificateExpirationInfo` object of the
 * `output.kubeadm.k8s.io/v1alpha3` API (every renewal target, including the client
 * certificates embedded in kubeconfig files, then every CA), and its text table.
 *
 * As upstream: a missing file is an entry with `missing: true`; an existing one reports its
 * NotAfter, the residual time in whole seconds, its CA and whether that CA is externally
 * managed. A certificate or kubeconfig that cannot be read, or a CA whose external-mode check
 * fails, fails the whole report with the message naming the file.
 *
 * @module
 */
import { OUTPUT_API_VERSION } from "../text/structured_output.ts";
import { humanDuration } from "../text/human_duration.ts";
import { tabwriterFormat } from "../text/tabwriter.ts";
import { externalCAChecker } from "./external_ca.ts";
import {
  caTargets,
  loadTarget,
  readExistingCert,
  type RenewalFiles,
  renewTargets,
  targetExists,
} from "./renewal.ts";
import { ExitCode, KubeadmError } from "../errors.ts";

/** One row of the report (output API `Certificate`); field order is upstream's JSON order. */
export interface CertificateExpiration {
  /** Certificate or kubeconfig name (`apiserver`, `admin.conf`, `ca`). */
  name: string;
  /** NotAfter in RFC 3339 (UTC, whole seconds); `null` when missing. */
  expirationDate: string | null;
  /** Seconds until NotAfter, truncated toward zero (negative once expired). */
  residualTime: number;
  /** Whether its CA has no key on the node (an external CA). */
  externallyManaged: boolean;
  /** The signing CA; absent for CAs and missing certificates. */
  caName?: string;
  /** Whether the file is absent. */
  missing: boolean;
}

/** The report (output API `CertificateExpirationInfo`). */
export interface CertificateExpirationInfo {
  /** `CertificateExpirationInfo`. */
  kind: "CertificateExpirationInfo";
  /** `output.kubeadm.k8s.io/v1alpha3`. */
  apiVersion: "output.kubeadm.k8s.io/v1alpha3";
  /** The leaf certificates and kubeconfigs. */
  certificates: CertificateExpiration[];
  /** The CAs. */
  certificateAuthorities: CertificateExpiration[];
}

/** Input of {@link checkExpiration} (the PKI directory's port checks an external CA's leaves). */
export interface ExpirationInput extends RenewalFiles {
  /** External etcd: the etcd certificates and CA are not reported. */
  externalEtcd: boolean;
  now: Date;
}

function rfc3339(d: Date): string {
  return `${d.toISOString().slice(0, 19)}Z`;
}

function entry(
  name: string,
  notAfter: Date,
  now: Date,
  externallyManaged: boolean,
  caName?: string,
): CertificateExpiration {
  return {
    name,
    expirationDate: rfc3339(notAfter),
    residualTime: Math.trunc((notAfter.getTime() - now.getTime()) / 1000),
    externallyManaged,
    ...(caName ? { caName } : {}),
    missing: false,
  };
}

function missing(name: string): CertificateExpiration {
  return { name, expirationDate: null, residualTime: 0, externallyManaged: false, missing: true };
}

/**
 * Builds the report from the files (upstream `fetchCertificateExpirationInfo`). Returns the
 * report and upstream's period warnings met while checking CAs (for stderr).
 */
export async function checkExpiration(
  input: ExpirationInput,
): Promise<{ info: CertificateExpirationInfo; warnings: string[] }> {
  const { now } = input;
  // One walk: each file of the directory is read once for the whole report.
  const pki = input.pki.walk();
  const where = { ...input, pki };
  const external = externalCAChecker(pki, now);
  const isExternal = (caBaseName: string) => external.isExternal(caBaseName);
  const certificates: CertificateExpiration[] = [];
  for (const target of renewTargets(input.externalEtcd)) {
    if (!(await targetExists(target, where))) {
      certificates.push(missing(target.name));
      continue;
    }
    const managed = await isExternal(target.caBaseName);
    const { cert } = await loadTarget(target, where);
    certificates.push(entry(target.name, cert.notAfter, now, managed, target.caName));
  }
  const certificateAuthorities: CertificateExpiration[] = [];
  for (const ca of caTargets(input.externalEtcd)) {
    if (!(await pki.hasCert(ca.baseName))) {
      certificateAuthorities.push(missing(ca.name));
      continue;
    }
    const managed = await isExternal(ca.baseName);
    const { notAfter } = await readExistingCert(pki, ca.baseName);
    certificateAuthorities.push(entry(ca.name, notAfter, now, managed));
  }
  return {
    info: {
      kind: "CertificateExpirationInfo",
      apiVersion: OUTPUT_API_VERSION,
      certificates,
      certificateAuthorities,
    },
    warnings: external.warnings,
  };
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** Go's `Jan 02, 2006 15:04 MST` layout of a UTC time. */
export function formatExpiryDate(iso: string): string {
  const d = new Date(iso);
  const p = (n: number) => String(n).padStart(2, "0");
  return `${MONTHS[d.getUTCMonth()]} ${p(d.getUTCDate())}, ${d.getUTCFullYear()} ${
    p(d.getUTCHours())
  }:${p(d.getUTCMinutes())} UTC`;
}

function yesNo(b: boolean): string {
  return (b ? "yes" : "no").padEnd(8);
}

/** The text tables upstream's `certTextPrinter` prints (one tabwriter for both tables). */
export function formatExpirationText(info: CertificateExpirationInfo): string {
  const lines: string[] = [
    "CERTIFICATE\tEXPIRES\tRESIDUAL TIME\tCERTIFICATE AUTHORITY\tEXTERNALLY MANAGED",
  ];
  for (const c of info.certificates) {
    lines.push(
      c.missing ? `!MISSING! ${c.name}\t\t\t\t` : [
        c.name,
        formatExpiryDate(c.expirationDate!),
        humanDuration(c.residualTime * 1000),
        c.caName ?? "",
        yesNo(c.externallyManaged),
      ].join("\t"),
    );
  }
  lines.push("", "CERTIFICATE AUTHORITY\tEXPIRES\tRESIDUAL TIME\tEXTERNALLY MANAGED");
  for (const c of info.certificateAuthorities) {
    lines.push(
      c.missing ? `!MISSING! ${c.name}\t\t\t` : [
        c.name,
        formatExpiryDate(c.expirationDate!),
        humanDuration(c.residualTime * 1000),
        yesNo(c.externallyManaged),
      ].join("\t"),
    );
  }
  return tabwriterFormat(`${lines.join("\n")}\n`);
}

/**
 * The certificates and CAs (missing ones excluded) that expire within `windowMs` of the
 * report's time, already expired ones included: what `--fail-if-expiring-within` fails on.
 */
export function expiringWithin(
  info: CertificateExpirationInfo,
  windowMs: number,
): CertificateExpiration[] {
  return [...info.certificates, ...info.certificateAuthorities].filter((c) =>
    !c.missing && c.residualTime * 1000 < windowMs
  );
}

/**
 * Certificates expire within the window of `check-expiration --fail-if-expiring-within`
 * (exit status 4, after the report was printed). The message names each one.
 */
export class ExpiringCertificatesError extends KubeadmError {
  override readonly code = "ERR_CERTS_EXPIRING";
  override readonly exitCode = ExitCode.expiring;
  /** What expires within the window. */
  readonly expiring: readonly CertificateExpiration[];

  constructor(expiring: readonly CertificateExpiration[], window: string) {
    super(
      `${expiring.length} certificate(s) expire within ${window}: ${
        expiring.map((c) => `${c.name} (${c.expirationDate})`).join(", ")
      }`,
      {
        field: "--fail-if-expiring-within",
        value: window,
        hint: 'renew them with "kubeadm certs renew"',
      },
    );
    this.expiring = expiring;
  }
}
