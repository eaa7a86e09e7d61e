/**
 * The detached JWS that signs the `cluster-info` ConfigMap for one bootstrap token
 * (upstream `cluster-bootstrap/token/jws`).
 *
 * The signature is a compact HS256 JWS whose payload segment is left empty (RFC 7515
 * appendix F): `BASE64URL(header) + ".." + BASE64URL(HMAC)`. The protected header is exactly
 * `{"alg":"HS256","kid":"<token-id>"}` (go-jose's byte order), the HMAC key is the token
 * secret's UTF-8 bytes zero-padded to 32 bytes, and the payload is the `kubeconfig` string as
 * stored. Verification recomputes the signature and compares the whole string, as upstream.
 *
 * Implemented on the crypto port's HMAC rather than `jose`: the header bytes must be exactly
 * go-jose's and the payload is never parsed, so the few lines below are the whole algorithm;
 * it also keeps the empty-secret case explicit (WebCrypto rejects zero-length HMAC keys, and
 * zero padding does not change an HMAC-SHA256 result) and jose out of the browser bundle.
 *
 * @module
 */
import type { Hashing } from "../ports/crypto.ts";
import { base64UrlEncode } from "../text/base64.ts";

const encoder = new TextEncoder();

/** Minimum HMAC key length go-jose enforces for HS256; shorter secrets are zero-padded. */
const MIN_HS256_KEY_BYTES = 32;

/** The protected header of a token's signature, base64url-encoded (no padding). */
export function jwsHeaderSegment(tokenId: string): string {
  return base64UrlEncode(encoder.encode(`{"alg":"HS256","kid":${JSON.stringify(tokenId)}}`));
}

function hmacKeyBytes(tokenSecret: string): Uint8Array {
  const secret = encoder.encode(tokenSecret);
  const key = new Uint8Array(Math.max(secret.length, MIN_HS256_KEY_BYTES));
  key.set(secret);
  return key;
}

/**
 * Computes the detached signature `<header>..<mac>` of `content` (the cluster-info
 * `kubeconfig` value) for the token `<tokenId>.<tokenSecret>`.
 */
export async function computeDetachedSignature(
  content: string,
  tokenId: string,
  tokenSecret: string,
  crypto: Hashing,
): Promise<string> {
  const header = jwsHeaderSegment(tokenId);
  const signingInput = `${header}.${base64UrlEncode(encoder.encode(content))}`;
  const mac = await crypto.hmac("SHA-256", hmacKeyBytes(tokenSecret), encoder.encode(signingInput));
  return `${header}..${base64UrlEncode(mac)}`;
}

/**
 * Whether `detachedToken` is the signature of `content` for the token: recomputes it and
 * compares the whole string (any extra character, other header order or padding fails).
 */
export async function detachedTokenIsValid(
  detachedToken: string,
  content: string,
  tokenId: string,
  tokenSecret: string,
  crypto: Hashing,
): Promise<boolean> {
  try {
    return detachedToken ===
      await computeDetachedSignature(content, tokenId, tokenSecret, crypto);
  } catch {
    return false;
  }
}
