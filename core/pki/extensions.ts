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
  asMalformed,
  bitStringOf,
  booleanOf,
  childrenOf,
  CONTEXT,
  type DerElement,
  integerOf,
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
  /**
   * Every other SAN (an e-mail address, a URI, or another kind of name), as `email:…`,
   * `URI:…` or `GeneralName [n]`: what a check that allows only DNS names and IPs refuses.
   */
  otherAltNames: string[];
  /** SubjectKeyIdentifier. */
  subjectKeyId?: Uint8Array;
  /** AuthorityKeyIdentifier's key id. */
  authorityKeyId?: Uint8Array;
  /** Every extension OID present, with its criticality. */
  present: { oid: string; critical: boolean }[];
}

/** One extension as read: its OID, criticality and value (the DER inside the OCTET STRING). */
export interface RawExtension {
  oid: string;
  critical: boolean;
  value: Uint8Array;
}

/**
 * Reads a SEQUENCE OF Extension (the content of a certificate's `[3]`, or of a CSR's
 * extensionRequest) with Go's checks and messages: each `SEQUENCE { OID, BOOLEAN DEFAULT FALSE,
 * OCTET STRING }` and nothing more (openssl refuses more too), no OID twice.
 */
export function readExtensions(extensions: DerElement[]): RawExtension[] {
  const out: RawExtension[] = [];
  const seen = new Set<string>();
  for (const ext of extensions) {
    if (!isUniversal(ext, TAG.sequence) || !ext.constructed) {
      throw new PkiError("x509: malformed extension");
    }
    const parts = asMalformed(() => childrenOf(ext), "x509: malformed extension");
    const id = oidOf(parts[0]);
    if (id === undefined) throw new PkiError("x509: malformed extension OID field");
    let i = 1;
    let critical = false;
    if (isUniversal(parts[1], TAG.boolean)) {
      critical = asMalformed(() => booleanOf(parts[1]), "x509: malformed extension critical field");
      i = 2;
    }
    const value = parts[i];
    if (!isUniversal(value, TAG.octetString) || value.constructed) {
      throw new PkiError("x509: malformed extension value field");
    }
    if (parts.length > i + 1) throw new PkiError("x509: malformed extension");
    if (seen.has(id)) {
      throw new PkiError(
        `x509: certificate contains duplicate extension with OID ${JSON.stringify(id)}`,
      );
    }
    seen.add(id);
    out.push({ oid: id, critical, value: value.content });
  }
  return out;
}

/** The SEQUENCE that `value` starts with (what follows it is ignored, as Go does), or `message`. */
function sequenceAt(value: Uint8Array, message: string): DerElement {
  const seq = asMalformed(() => readDer(value), message);
  if (!isUniversal(seq, TAG.sequence) || !seq.constructed) throw new PkiError(message);
  return seq;
}

/** The content of the SEQUENCE that `value` starts with, or `message`. */
const sequenceContent = (value: Uint8Array, message: string) => sequenceAt(value, message).content;

/** The elements of the SEQUENCE that `value` starts with, or `message`. */
function sequenceIn(value: Uint8Array, message: string): DerElement[] {
  const seq = sequenceAt(value, message);
  return asMalformed(() => childrenOf(seq), message);
}

/** Whether every octet is ASCII (Go's IA5String check). */
const isIA5 = (b: Uint8Array) => b.every((x) => x < 0x80);

/**
 * Decodes the extensions kubeadm reads as Go's `crypto/x509` does, with its checks and
 * messages. Go also checks name constraints, policies, CRL distribution points and AIA, which
 * kubeadm never reads: those values are not checked here.
 */
export function decodeExtensions(extensions: RawExtension[]): DecodedExtensions {
  const out: DecodedExtensions = {
    keyUsage: [],
    extKeyUsage: [],
    basicConstraintsValid: false,
    isCA: false,
    dnsNames: [],
    ipAddresses: [],
    otherAltNames: [],
    present: [],
  };
  for (const { oid: id, critical, value } of extensions) {
    out.present.push({ oid: id, critical });
    switch (id) {
      case OID.keyUsage: {
        const bytes = asMalformed(() => bitStringOf(readDer(value)), "x509: invalid key usage");
        KEY_USAGE_BITS.forEach((name, bit) => {
          if (bytes.length > bit >> 3 && bytes[bit >> 3] & (0x80 >> (bit & 7))) {
            out.keyUsage.push(name);
          }
        });
        break;
      }
      case OID.extKeyUsage:
        for (const o of sequenceIn(value, "x509: invalid extended key usages")) {
          const dotted = oidOf(o);
          if (dotted === undefined) throw new PkiError("x509: invalid extended key usages");
          const known = (Object.entries(EKU_OIDS) as [ExtKeyUsage, string][]).find(([, v]) =>
            v === dotted
          );
          out.extKeyUsage.push(known ? known[0] : dotted);
        }
        break;
      case OID.basicConstraints: {
        // As Go: an optional BOOLEAN, then an optional INTEGER; the rest is not read.
        const invalid = "x509: invalid basic constraints";
        let rest = sequenceContent(value, invalid);
        if (rest[0] === 0x01) {
          const flag = asMalformed(() => readDer(rest), invalid);
          out.isCA = asMalformed(() => booleanOf(flag), invalid);
          rest = rest.subarray(flag.raw.length);
        }
        if (rest[0] === 0x02) {
          // A pathLen must be a non-negative int.
          const n = asMalformed(() => integerOf(readDer(rest)), invalid);
          if (n < 0n || n >= 1n << 63n) throw new PkiError(invalid);
        }
        out.basicConstraintsValid = true;
        break;
      }
      case OID.subjectAltName:
        for (const gn of sequenceIn(value, "x509: invalid subject alternative names")) {
          // Go reads the primitive context tags: [1] email, [2] DNS, [6] URI, [7] IP; any other
          // name (otherName, directoryName, …) is kept only as "other" for the CSR checks.
          if (gn.cls !== CONTEXT) continue;
          const raw = gn.content;
          const text = () => new TextDecoder().decode(raw);
          if (gn.constructed) out.otherAltNames.push(`GeneralName [${gn.tag}]`);
          else if (gn.tag === 1) {
            if (!isIA5(raw)) throw new PkiError("x509: SAN rfc822Name is malformed");
            out.otherAltNames.push(`email:${text()}`);
          } else if (gn.tag === 2) {
            if (!isIA5(raw)) throw new PkiError("x509: SAN dNSName is malformed");
            out.dnsNames.push(text());
          } else if (gn.tag === 6) {
            if (!isIA5(raw)) throw new PkiError("x509: SAN uniformResourceIdentifier is malformed");
            out.otherAltNames.push(`URI:${text()}`);
          } else if (gn.tag === 7) {
            if (raw.length !== 4 && raw.length !== 16) {
              throw new PkiError(`x509: cannot parse IP address of length ${raw.length}`);
            }
            out.ipAddresses.push(formatIP(raw));
          } else out.otherAltNames.push(`GeneralName [${gn.tag}]`);
        }
        break;
      case OID.subjectKeyIdentifier:
        if (critical) {
          throw new PkiError("x509: subject key identifier incorrectly marked critical");
        }
        out.subjectKeyId = asMalformed(
          () => primitiveOf(readDer(value), TAG.octetString),
          "x509: invalid subject key identifier",
        ).slice();
        break;
      case OID.authorityKeyIdentifier: {
        const invalid = "x509: invalid authority key identifier";
        if (critical) {
          throw new PkiError("x509: authority key identifier incorrectly marked critical");
        }
        // As Go: only a leading [0] keyIdentifier is read.
        const content = sequenceContent(value, invalid);
        if (content[0] === 0x80) {
          out.authorityKeyId = asMalformed(() => readDer(content), invalid).content.slice();
        }
        break;
      }
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
