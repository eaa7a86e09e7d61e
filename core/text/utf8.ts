/**
 * UTF-8 for file contents: every file kubeadm writes is text (PEM, YAML, env), read back as
 * bytes.
 *
 * @module
 */

/** Decodes UTF-8 file content. */
export function utf8(data: Uint8Array): string {
  return new TextDecoder().decode(data);
}

/** Encodes text as UTF-8. */
export function toBytes(data: string | Uint8Array): Uint8Array {
  return typeof data === "string" ? new TextEncoder().encode(data) : data;
}
