/**
 * The X.509 v3 extensions kubeadm's certificates carry, encoded as Go's `crypto/x509` encodes
 * them, and decoded from any certificate or request.
 *
 * @module
 */
import { PkiError } from "../errors.ts";
import { bitString, boolean, implicitPrimitive, octetString, oid, sequence } from "./der.ts";
import { formatIP, ipEqual, parseIP } from "../net/ip.ts";
import { OID } from "./oid.ts";
import {
  bitStringOf,
  booleanOf,
  childrenOf,
  type DerElement,
  isContext,
  isUniversal,
  oidOf,
  primitiveOf,
  readDer,
  TAG,
} from "./der_reader.ts";

/** Key usage bits, named as RFC 5280 / openssl name them. */
export type X509KeyUsage =
  | "digitalSignature"
  | "contentCommitment"
  | "keyEncipherment"
  | "dataEncipherment"
  | "keyAgreement"
  | "keyCertSign"
  | "cRLSign"
  | "encipherOnly"
  | "decipherOnly";

/** Bit positions of {@link X509KeyUsage}. */
const KEY_USAGE_BITS: readonly X509KeyUsage[] = [
  "digitalSignature",
  "contentCommitment",
  "keyEncipherment",
  "dataEncipherment",
  "keyAgreement",
  "keyCertSign",
  "cRLSign",
  "encipherOnly",
  "decipherOnly",
];

/** Extended key usages kubeadm issues. Unknown ones parse as their dotted OID. */
export type ExtKeyUsage = "serverAuth" | "clientAuth";

const EKU_OIDS: Record<ExtKeyUsage, string> = {
  serverAuth: OID.serverAuth,
  clientAuth: OID.clientAuth,
};

/**
 * The other extended key usages Go's `crypto/x509` knows (dotted OIDs): a certificate keeps
 * them through `ExtKeyUsage` when it is re-issued, while OIDs outside this list are dropped.
 */
const GO_KNOWN_EXT_KEY_USAGE_OIDS: readonly string[] = [
  OID.anyExtendedKeyUsage,
  "1.3.6.1.5.5.7.3.3", // codeSigning
  "1.3.6.1.5.5.7.3.4", // emailProtection
  "1.3.6.1.5.5.7.3.5", // ipsecEndSystem
  "1.3.6.1.5.5.7.3.6", // ipsecTunnel
  "1.3.6.1.5.5.7.3.7", // ipsecUser
  "1.3.6.1.5.5.7.3.8", // timeStamping
  "1.3.6.1.5.5.7.3.9", // OCSPSigning
  "1.3.6.1.4.1.311.10.3.3", // Microsoft server gated crypto
  "2.16.840.1.113730.4.1", // Netscape server gated crypto
  "1.3.6.1.4.1.311.2.1.22", // Microsoft commercial code signing
  "1.3.6.1.4.1.311.61.1.1", // Microsoft kernel code signing
];

/** True for the extended key usages Go keeps (see {@link GO_KNOWN_EXT_KEY_USAGE_OIDS}). */
export function isGoKnownExtKeyUsage(usage: string): boolean {
  return usage in EKU_OIDS || GO_KNOWN_EXT_KEY_USAGE_OIDS.includes(usage);
}

/** One encoded extension ready for a TBSCertificate or an extensionRequest. */
export interface EncodedExtension {
  oid: string;
  critical: boolean;
  /** DER of the extension value (what goes inside the OCTET STRING). */
  value: Uint8Array;
}

/** `Extension ::= SEQUENCE { extnID, critical DEFAULT FALSE, extnValue OCTET STRING }`. */
export function encodeExtension(ext: EncodedExtension): Uint8Array {
  return ext.critical
    ? sequence(oid(ext.oid), boolean(true), octetString(ext.value))
    : sequence(oid(ext.oid), octetString(ext.value));
}

/** X509KeyUsage (critical), with Go's minimal BIT STRING length. */
export function keyUsageExtension(usages: readonly X509KeyUsage[]): EncodedExtension {
  const bytes = new Uint8Array(2);
  for (const u of usages) {
    const bit = KEY_USAGE_BITS.indexOf(u);
    bytes[bit >> 3] |= 0x80 >> (bit & 7);
  }
  const used = bytes[1] !== 0 ? bytes : bytes.slice(0, 1);
  let bitLen = used.length * 8;
  outer: for (let i = used.length - 1; i >= 0; i--) {
    for (let b = 0; b < 8; b++) {
      if ((used[i] >> b) & 1) break outer;
      bitLen--;
    }
  }
  return { oid: OID.keyUsage, critical: true, value: bitString(used, used.length * 8 - bitLen) };
}

/**
 * ExtendedKeyUsage (not critical), in the given order: {@link ExtKeyUsage} names or dotted
 * OIDs.
 */
export function extKeyUsageExtension(usages: readonly string[]): EncodedExtension {
  return {
    oid: OID.extKeyUsage,
    critical: false,
    value: sequence(...usages.map((u) => oid(EKU_OIDS[u as ExtKeyUsage] ?? u))),
  };
}

/** BasicConstraints (critical): `CA:TRUE` without pathLen, or the empty `CA:FALSE` sequence. */
export function basicConstraintsExtension(isCA: boolean): EncodedExtension {
  return {
    oid: OID.basicConstraints,
    critical: true,
    value: isCA ? sequence(boolean(true)) : sequence(),
  };
}

/** SubjectKeyIdentifier. */
export function subjectKeyIdExtension(keyId: Uint8Array): EncodedExtension {
  return { oid: OID.subjectKeyIdentifier, critical: false, value: octetString(keyId) };
}

/** AuthorityKeyIdentifier carrying only the key identifier. */
export function authorityKeyIdExtension(keyId: Uint8Array): EncodedExtension {
  return {
    oid: OID.authorityKeyIdentifier,
    critical: false,
    value: sequence(implicitPrimitive(0, keyId)),
  };
}

/**
 * SubjectAltName with DNS names first, then IPs (Go's order). Critical only when the subject
 * is empty, as RFC 5280 requires and Go does.
 */
export function subjectAltNameExtension(
  dnsNames: readonly string[],
  ips: readonly string[],
  subjectEmpty = false,
): EncodedExtension {
  const names = [
    ...dnsNames.map((d) => implicitPrimitive(2, new TextEncoder().encode(d))),
    ...ips.map((ip) => {
      const bytes = parseIP(ip);
      if (!bytes) {
        throw new PkiError(`x509: invalid IP address ${JSON.stringify(ip)} in SAN`, { value: ip });
      }
      return implicitPrimitive(7, bytes);
    }),
  ];
  return { oid: OID.subjectAltName, critical: subjectEmpty, value: sequence(...names) };
}

/** What a set of extensions says, decoded. */
export interface DecodedExtensions {
  /** Key usages. */
  keyUsage: X509KeyUsage[];
  /** `serverAuth`/`clientAuth`, or the dotted OID of anything else. */
  extKeyUsage: string[];
  /** Whether a BasicConstraints extension is present. */
  basicConstraintsValid: boolean;
  /** BasicConstraints CA flag. */
  isCA: boolean;
  /** DNS SANs. */
  dnsNames: string[];
  /** IP SANs, as text. */
  ipAddresses: string[];
  /** SubjectKeyIdentifier. */
  subjectKeyId?: Uint8Array;
  /** AuthorityKeyIdentifier's key id. */
  authorityKeyId?: Uint8Array;
  /** Every extension OID present, with its criticality. */
  present: { oid: string; critical: boolean }[];
}

function fromDer(bytes: Uint8Array): DerElement {
  try {
    return readDer(bytes);
  } catch {
    throw new PkiError("x509: malformed extension");
  }
}

/** Decodes a SEQUENCE OF Extension (the content of `[3]` in a certificate). */
export function decodeExtensions(extensions: DerElement[]): DecodedExtensions {
  const out: DecodedExtensions = {
    keyUsage: [],
    extKeyUsage: [],
    basicConstraintsValid: false,
    isCA: false,
    dnsNames: [],
    ipAddresses: [],
    present: [],
  };
  for (const ext of extensions) {
    const parts = childrenOf(ext);
    const id = oidOf(parts[0]);
    const valueBlock = parts[parts.length - 1];
    if (id === undefined || !isUniversal(valueBlock, TAG.octetString)) {
      throw new PkiError("x509: malformed extension");
    }
    const critical = booleanOf(parts[1]);
    const value = valueBlock.content;
    out.present.push({ oid: id, critical });
    switch (id) {
      case OID.keyUsage: {
        const bytes = bitStringOf(fromDer(value));
        KEY_USAGE_BITS.forEach((name, bit) => {
          if (bytes.length > bit >> 3 && bytes[bit >> 3] & (0x80 >> (bit & 7))) {
            out.keyUsage.push(name);
          }
        });
        break;
      }
      case OID.extKeyUsage:
        for (const o of childrenOf(fromDer(value))) {
          const dotted = oidOf(o);
          if (dotted === undefined) throw new PkiError("x509: malformed extension");
          const known = (Object.entries(EKU_OIDS) as [ExtKeyUsage, string][]).find(([, v]) =>
            v === dotted
          );
          out.extKeyUsage.push(known ? known[0] : dotted);
        }
        break;
      case OID.basicConstraints: {
        out.basicConstraintsValid = true;
        out.isCA = booleanOf(childrenOf(fromDer(value))[0]);
        break;
      }
      case OID.subjectAltName:
        for (const gn of childrenOf(fromDer(value))) {
          if (gn.cls !== 2) continue;
          const raw = gn.content;
          if (gn.tag === 2) out.dnsNames.push(new TextDecoder().decode(raw));
          if (gn.tag === 7 && (raw.length === 4 || raw.length === 16)) {
            out.ipAddresses.push(formatIP(raw));
          }
        }
        break;
      case OID.subjectKeyIdentifier:
        out.subjectKeyId = primitiveOf(fromDer(value), TAG.octetString).slice();
        break;
      case OID.authorityKeyIdentifier:
        for (const item of childrenOf(fromDer(value))) {
          if (isContext(item, 0)) out.authorityKeyId = item.content.slice();
        }
        break;
    }
  }
  return out;
}

/** Removes duplicate SANs: DNS names sorted (a set), IPs in first-seen order (canonical text). */
export function dedupeAltNames(dnsNames: readonly string[], ips: readonly string[]): {
  dnsNames: string[];
  ips: string[];
} {
  const dns = [...new Set(dnsNames)].sort();
  const seen: Uint8Array[] = [];
  const outIps: string[] = [];
  for (const ip of ips) {
    const b = parseIP(ip);
    if (!b) throw new PkiError(`invalid IP address ${JSON.stringify(ip)}`, { value: ip });
    if (seen.some((s) => ipEqual(s, b))) continue;
    seen.push(b);
    outIps.push(formatIP(b));
  }
  return { dnsNames: dns, ips: outIps };
}
