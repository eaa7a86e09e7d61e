/**
 * X.509 distinguished names as kubeadm uses them: Organization(s) and a CommonName.
 *
 * Encoding follows Go's `pkix.Name.ToRDNSequence`: one RDN SET per attribute TYPE, O before
 * CN, several values of one type share that SET, each value PrintableString when allowed else
 * UTF8String. Parsing reads any Name.
 *
 * @module
 */
import { PkiError } from "../errors.ts";
import { directoryString, oid, sequence, setOf } from "./der.ts";
import { OID } from "./oid.ts";
import {
  asMalformed,
  childrenOf,
  type DerElement,
  isUniversal,
  oidOf,
  readDer,
  stringOf,
  TAG,
} from "./der_reader.ts";

/** The subject/issuer fields kubeadm cares about. */
export interface DistinguishedName {
  /** CN. */
  commonName: string;
  /** O, in order. */
  organization: string[];
}

/** A parsed Name: the common fields, every attribute in order, and the raw DER. */
export interface ParsedName extends DistinguishedName {
  /** Every attribute as `[oid, value]`, in encoded order. */
  attributes: [string, string][];
  /** The same attributes grouped by RDN SET. */
  rdns: [string, string][][];
  /** The Name's DER (what issuer/subject chaining compares). */
  der: Uint8Array;
}

/** Encodes a Name the way Go does (O then CN; an empty name is an empty SEQUENCE). */
export function encodeName(name: Partial<DistinguishedName>): Uint8Array {
  const rdns: Uint8Array[] = [];
  const orgs = name.organization ?? [];
  if (orgs.length > 0) {
    rdns.push(setOf(...orgs.map((o) => sequence(oid(OID.organization), directoryString(o)))));
  }
  if (name.commonName) {
    rdns.push(setOf(sequence(oid(OID.commonName), directoryString(name.commonName))));
  }
  return sequence(...rdns);
}

/** openssl refuses a Name longer than this (`X509_NAME_MAX`); Go has no bound. */
const MAX_NAME_BYTES = 1024 * 1024;

/**
 * Parses a Name from its DER or its element in a larger structure, as Go's `crypto/x509` does
 * (its checks and messages): a SEQUENCE of SETs of `SEQUENCE { OID, string }`, nothing more in
 * an attribute (openssl refuses more too).
 */
export function parseName(input: Uint8Array | DerElement | undefined): ParsedName {
  const invalid = "x509: invalid RDNSequence";
  const seq = input instanceof Uint8Array ? asMalformed(() => readDer(input), invalid) : input;
  if (!isUniversal(seq, TAG.sequence) || !seq.constructed) throw new PkiError(invalid);
  if (seq.raw.length > MAX_NAME_BYTES) throw new PkiError(`${invalid}: longer than 1 MiB`);
  const rdns: [string, string][][] = [];
  for (const set of asMalformed(() => childrenOf(seq), invalid)) {
    if (!isUniversal(set, TAG.set) || !set.constructed) throw new PkiError(invalid);
    const rdn: [string, string][] = [];
    for (const atv of asMalformed(() => childrenOf(set), invalid)) {
      const attribute = `${invalid}: invalid attribute`;
      if (!isUniversal(atv, TAG.sequence) || !atv.constructed) throw new PkiError(attribute);
      const [type, value, ...rest] = asMalformed(() => childrenOf(atv), attribute);
      const id = oidOf(type);
      if (id === undefined) throw new PkiError(`${attribute} type`);
      if (value === undefined) throw new PkiError(`${attribute} value`);
      if (rest.length > 0) throw new PkiError(attribute);
      let text: string;
      try {
        text = stringOf(value);
      } catch (e) {
        throw new PkiError(`${attribute} value: ${(e as Error).message}`);
      }
      rdn.push([id, text]);
    }
    rdns.push(rdn);
  }
  const attributes = rdns.flat();
  const cns = attributes.filter(([t]) => t === OID.commonName).map(([, v]) => v);
  return {
    commonName: cns[cns.length - 1] ?? "",
    organization: attributes.filter(([t]) => t === OID.organization).map(([, v]) => v),
    attributes,
    rdns,
    der: input instanceof Uint8Array ? input.slice() : seq.raw.slice(),
  };
}

const SHORT_NAMES: Record<string, string> = {
  [OID.commonName]: "CN",
  [OID.organization]: "O",
  [OID.organizationalUnit]: "OU",
  [OID.country]: "C",
  [OID.province]: "ST",
  [OID.locality]: "L",
  [OID.streetAddress]: "STREET",
  [OID.postalCode]: "POSTALCODE",
  [OID.serialNumber]: "SERIALNUMBER",
};

/** RFC 2253-style text like Go's `pkix.Name.String()`: RDNs reversed, `CN=a,O=b+O=c`. */
export function formatName(name: ParsedName): string {
  const escape = (v: string) => v.replace(/([,+"\\<>;])/g, "\\$1");
  return [...name.rdns].reverse()
    .map((rdn) => rdn.map(([t, v]) => `${SHORT_NAMES[t] ?? t}=${escape(v)}`).join("+"))
    .join(",");
}
