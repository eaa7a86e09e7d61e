/**
 * X.509 distinguished names as kubeadm uses them: Organization(s) and a CommonName.
 *
 * Encoding follows Go's `pkix.Name.ToRDNSequence`: one RDN SET per attribute TYPE, O before
 * CN, several values of one type share that SET, each value PrintableString when allowed else
 * UTF8String. Parsing reads any Name.
 *
 * @module
 */
import * as asn1js from "asn1js";
import { PkiError } from "../errors.ts";
import { directoryString, oid, sequence, setOf } from "./der.ts";
import { OID } from "./oid.ts";

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

function stringValue(v: asn1js.AsnType): string {
  const anyV = v as unknown as { valueBlock?: { value?: unknown } };
  if (typeof anyV.valueBlock?.value === "string") return anyV.valueBlock.value;
  throw new PkiError("x509: unsupported attribute value type in name");
}

/** Parses a Name from its asn1js form or DER. */
export function parseName(input: Uint8Array | asn1js.Sequence): ParsedName {
  let seq: asn1js.AsnType;
  if (input instanceof Uint8Array) {
    const r = asn1js.fromBER(input.slice());
    if (r.offset === -1) throw new PkiError("x509: malformed name");
    seq = r.result;
  } else {
    seq = input;
  }
  if (!(seq instanceof asn1js.Sequence)) throw new PkiError("x509: malformed name");
  const rdns: [string, string][][] = [];
  for (const set of seq.valueBlock.value) {
    const rdn: [string, string][] = [];
    for (const atv of (set as asn1js.Set).valueBlock.value) {
      const [type, value] = (atv as asn1js.Sequence).valueBlock.value;
      if (!(type instanceof asn1js.ObjectIdentifier)) throw new PkiError("x509: malformed name");
      rdn.push([type.valueBlock.toString(), stringValue(value)]);
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
    der: input instanceof Uint8Array
      ? input.slice()
      : seq.valueBeforeDecodeView.length > 0
      ? seq.valueBeforeDecodeView.slice()
      : new Uint8Array(seq.toBER()),
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
