/**
 * Object identifiers used by kubeadm's certificates, keys and requests.
 *
 * @module
 */

/** Algorithm, attribute and extension OIDs (dotted form). */
export const OID = {
  rsaEncryption: "1.2.840.113549.1.1.1",
  sha1WithRSAEncryption: "1.2.840.113549.1.1.5",
  sha256WithRSAEncryption: "1.2.840.113549.1.1.11",
  sha384WithRSAEncryption: "1.2.840.113549.1.1.12",
  sha512WithRSAEncryption: "1.2.840.113549.1.1.13",
  ecPublicKey: "1.2.840.10045.2.1",
  ecdsaWithSHA256: "1.2.840.10045.4.3.2",
  ecdsaWithSHA384: "1.2.840.10045.4.3.3",
  ecdsaWithSHA512: "1.2.840.10045.4.3.4",
  prime256v1: "1.2.840.10045.3.1.7",
  secp384r1: "1.3.132.0.34",
  secp521r1: "1.3.132.0.35",
  commonName: "2.5.4.3",
  serialNumber: "2.5.4.5",
  country: "2.5.4.6",
  locality: "2.5.4.7",
  province: "2.5.4.8",
  streetAddress: "2.5.4.9",
  organization: "2.5.4.10",
  organizationalUnit: "2.5.4.11",
  postalCode: "2.5.4.17",
  extensionRequest: "1.2.840.113549.1.9.14",
  subjectKeyIdentifier: "2.5.29.14",
  keyUsage: "2.5.29.15",
  subjectAltName: "2.5.29.17",
  basicConstraints: "2.5.29.19",
  authorityKeyIdentifier: "2.5.29.35",
  extKeyUsage: "2.5.29.37",
  serverAuth: "1.3.6.1.5.5.7.3.1",
  clientAuth: "1.3.6.1.5.5.7.3.2",
  anyExtendedKeyUsage: "2.5.29.37.0",
} as const;

/** Curve name ↔ OID. */
export const CURVE_OIDS: Readonly<Record<"P-256" | "P-384" | "P-521", string>> = {
  "P-256": OID.prime256v1,
  "P-384": OID.secp384r1,
  "P-521": OID.secp521r1,
};
