/**
 * Certificates and keys parsed once per run: a run reads the same PKI files again and again
 * (every leaf and kubeconfig loads its CA; later phases check what earlier ones wrote), and the
 * parsed form of a file's content never changes. So what a file system's content parsed to is
 * remembered, per file system (one run's, garbage-collected with it) and per content, and a read
 * of the same content returns it; a certificate or key this run writes is remembered as
 * written, never parsed at all. Keys are remembered per crypto port too, since a key is bound
 * to the port that made or imported it.
 *
 * Only successful parses are remembered: a file that does not parse fails on every read, naming
 * the path of that read.
 *
 * @module
 */
import type { FileReader } from "../host/ports.ts";
import type { Certificate } from "../pki/cert.ts";
import type { CryptoPort } from "../pki/crypto.ts";
import type { KeyPair } from "../pki/keys.ts";

interface Parsed {
  certs: Map<string, readonly Certificate[]>;
  keys: Map<CryptoPort | undefined, Map<string, KeyPair>>;
}

const byFiles = new WeakMap<FileReader, Parsed>();

function parsedOf(files: FileReader): Parsed {
  let p = byFiles.get(files);
  if (!p) byFiles.set(files, p = { certs: new Map(), keys: new Map() });
  return p;
}

function textOf(data: Uint8Array | string): string {
  return typeof data === "string" ? data : new TextDecoder().decode(data);
}

/** Remembers that `pem`, written through `files`, holds `certs`. */
export function rememberCertificates(
  files: FileReader,
  pem: string,
  certs: readonly Certificate[],
): void {
  parsedOf(files).certs.set(pem, [...certs]);
}

/** The certificates of a file's content read through `files`: remembered, or `parse`d once. */
export function certificatesOf(
  files: FileReader,
  data: Uint8Array | string,
  parse: (data: Uint8Array | string) => Certificate[],
): Certificate[] {
  const memo = parsedOf(files).certs;
  const pem = textOf(data);
  const hit = memo.get(pem);
  if (hit) return [...hit];
  const certs = parse(data);
  memo.set(pem, [...certs]);
  return certs;
}

/** Remembers that `pem`, written through `files`, holds `key`, made or imported with `crypto`. */
export function rememberKey(
  files: FileReader,
  pem: string,
  crypto: CryptoPort | undefined,
  key: KeyPair,
): void {
  keysOf(files, crypto).set(pem, key);
}

function keysOf(files: FileReader, crypto: CryptoPort | undefined): Map<string, KeyPair> {
  const parsed = parsedOf(files);
  let memo = parsed.keys.get(crypto);
  if (!memo) parsed.keys.set(crypto, memo = new Map());
  return memo;
}

/** The key of a file's content read through `files` with `crypto`: remembered, or `parse`d once. */
export async function keyOf(
  files: FileReader,
  data: Uint8Array | string,
  crypto: CryptoPort | undefined,
  parse: (data: Uint8Array | string) => Promise<KeyPair>,
): Promise<KeyPair> {
  const memo = keysOf(files, crypto);
  const pem = textOf(data);
  const hit = memo.get(pem);
  if (hit) return hit;
  const key = await parse(data);
  memo.set(pem, key);
  return key;
}
