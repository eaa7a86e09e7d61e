/**
 * PKCS#10 certificate signing requests, made like Go's `x509.CreateCertificateRequest` (subject
 * O/CN, SANs in an extensionRequest attribute) and parsed from any CSR. Used by
 * `certs generate-csr` and the kubelet TLS bootstrap.
 *
 * @module
 */
import {
  bitStringOf,
  childrenOf,
  type DerElement,
  isStructureError,
  isUniversal,
  oidOf,
  readDer,
  TAG,
} from "./der_reader.ts";
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
import { signatureAlgorithmFor, signData } from "./signature.ts";

/** PEM label of a CSR. */
const CERTIFICATE_REQUEST_BLOCK = "CERTIFICATE REQUEST";

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
    const top = readDer(der);
    if (!isUniversal(top, TAG.sequence) || !top.constructed) {
      throw new PkiError("x509: malformed certificate request");
    }
    const [infoBlock, algBlock, sigBlock] = childrenOf(top);
    const [, subjectBlock, spkiBlock, attrsBlock] = childrenOf(infoBlock);
    let extensions: DerElement[] = [];
    for (const attr of childrenOf(attrsBlock)) {
      const [type, values] = childrenOf(attr);
      if (oidOf(type) === OID.extensionRequest) {
        extensions = childrenOf(childrenOf(values)[0]);
      }
    }
    const signatureAlgorithm = oidOf(childrenOf(algBlock)[0]);
    if (signatureAlgorithm === undefined) {
      throw new PkiError("x509: malformed certificate request");
    }
    return {
      der: der.slice(),
      info: infoBlock.raw.slice(),
      subject: parseName(subjectBlock),
      spki: spkiBlock.raw.slice(),
      signatureAlgorithm,
      signature: bitStringOf(sigBlock).slice(),
      ...decodeExtensions(extensions),
    };
  } catch (e) {
    if (e instanceof PkiError && !isStructureError(e)) throw e;
    throw new PkiError("x509: malformed certificate request", { cause: e });
  }
}

/** PEM of a CSR (`CERTIFICATE REQUEST`). */
export function encodeCSRPEM(csr: CertificateRequest): string {
  return encodePem(CERTIFICATE_REQUEST_BLOCK, csr.der);
}
