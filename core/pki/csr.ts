/**
 * PKCS#10 certificate signing requests, made like Go's `x509.CreateCertificateRequest` (subject
 * O/CN, SANs in an extensionRequest attribute) and parsed from any CSR. Used by
 * `certs generate-csr` and the kubelet TLS bootstrap.
 *
 * @module
 */
import * as asn1js from "asn1js";
import { PkiError } from "../errors.ts";
import { bitString, integer, oid, sequence, setOf, tlv } from "./der.ts";
import {
  type DecodedExtensions,
  decodeExtensions,
  dedupeAltNames,
  type EncodedExtension,
  encodeExtension,
  subjectAltNameExtension,
} from "./extensions.ts";
import { exportSPKI, type KeyPair } from "./keys.ts";
import { encodeName, type ParsedName, parseName } from "./name.ts";
import { OID } from "./oid.ts";
import { decodePem, encodePem } from "./pem.ts";
import { signatureAlgorithmFor, signData, verifySignature } from "./signature.ts";

/** PEM label of a CSR. */
export const CERTIFICATE_REQUEST_BLOCK = "CERTIFICATE REQUEST";

/** What to request. */
export interface CSRConfig {
  commonName: string;
  organization?: string[];
  dnsNames?: string[];
  ips?: string[];
}

/** A parsed CSR. */
export interface CertificateRequest extends DecodedExtensions {
  der: Uint8Array;
  /** The signed CertificationRequestInfo bytes. */
  info: Uint8Array;
  subject: ParsedName;
  spki: Uint8Array;
  signatureAlgorithm: string;
  signature: Uint8Array;
}

/** Creates and signs a CSR with `key` (upstream `NewCSR`; SANs de-duplicated first). */
export async function createCSR(cfg: CSRConfig, key: KeyPair): Promise<CertificateRequest> {
  const { dnsNames, ips } = dedupeAltNames(cfg.dnsNames ?? [], cfg.ips ?? []);
  const extensions: EncodedExtension[] = [];
  if (dnsNames.length > 0 || ips.length > 0) {
    extensions.push(subjectAltNameExtension(dnsNames, ips));
  }
  const attributes = extensions.length > 0
    ? [sequence(oid(OID.extensionRequest), setOf(sequence(...extensions.map(encodeExtension))))]
    : [];
  const info = sequence(
    integer(0n),
    encodeName({ commonName: cfg.commonName, organization: cfg.organization }),
    await exportSPKI(key),
    tlv(0xa0, ...attributes),
  );
  const alg = signatureAlgorithmFor(key.spec);
  const signature = await signData(key, info);
  return parseCSR(sequence(info, alg.algorithmIdentifier, bitString(signature)));
}

function children(block: asn1js.AsnType): asn1js.AsnType[] {
  return (block as asn1js.Constructed).valueBlock?.value ?? [];
}

/** Parses a CSR from DER or from the first `CERTIFICATE REQUEST` PEM block. */
export function parseCSR(input: Uint8Array | string): CertificateRequest {
  let der: Uint8Array;
  if (typeof input === "string") {
    const block = decodePem(input).find((b) => b.type === CERTIFICATE_REQUEST_BLOCK);
    if (!block) throw new PkiError("PEM block type must be CERTIFICATE REQUEST");
    der = block.bytes;
  } else {
    der = input;
  }
  try {
    const r = asn1js.fromBER(der.slice());
    if (r.offset === -1 || !(r.result instanceof asn1js.Sequence)) {
      throw new PkiError("x509: malformed certificate request");
    }
    const [infoBlock, algBlock, sigBlock] = children(r.result);
    const [, subjectBlock, spkiBlock, attrsBlock] = children(infoBlock);
    let extensions: asn1js.AsnType[] = [];
    for (const attr of attrsBlock ? children(attrsBlock) : []) {
      const [type, values] = children(attr);
      if ((type as asn1js.ObjectIdentifier).valueBlock.toString() === OID.extensionRequest) {
        extensions = children(children(values)[0]);
      }
    }
    return {
      der: der.slice(),
      info: (infoBlock as asn1js.BaseBlock).valueBeforeDecodeView.slice(),
      subject: parseName(subjectBlock as asn1js.Sequence),
      spki: (spkiBlock as asn1js.BaseBlock).valueBeforeDecodeView.slice(),
      signatureAlgorithm: (children(algBlock)[0] as asn1js.ObjectIdentifier).valueBlock.toString(),
      signature: (sigBlock as asn1js.BitString).valueBlock.valueHexView.slice(),
      ...decodeExtensions(extensions),
    };
  } catch (e) {
    if (e instanceof PkiError) throw e;
    throw new PkiError("x509: malformed certificate request", { cause: e });
  }
}

/** PEM of a CSR (`CERTIFICATE REQUEST`). */
export function encodeCSRPEM(csr: CertificateRequest): string {
  return encodePem(CERTIFICATE_REQUEST_BLOCK, csr.der);
}

/** True when the CSR is signed by the key it carries (proof of possession). */
export async function verifyCSRSignature(csr: CertificateRequest): Promise<boolean> {
  try {
    return await verifySignature(csr.spki, csr.signatureAlgorithm, csr.info, csr.signature);
  } catch {
    return false;
  }
}
