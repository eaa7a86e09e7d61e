/**
 * Runs the real `openssl` CLI (and other external tools) from tests, to check generated PKI
 * artefacts with an independent implementation.
 *
 * @module
 */

/** Result of running a tool. */
export interface ToolResult {
  code: number;
  stdout: string;
  /** Raw stdout bytes (for binary output such as DER). */
  stdoutBytes: Uint8Array;
  stderr: string;
}

/** Runs `cmd args...` with optional stdin; never throws on a non-zero exit. */
export async function runTool(
  cmd: string,
  args: string[],
  stdin?: string | Uint8Array,
): Promise<ToolResult> {
  const child = new Deno.Command(cmd, {
    args,
    stdin: stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (stdin !== undefined) {
    const w = child.stdin.getWriter();
    await w.write(typeof stdin === "string" ? new TextEncoder().encode(stdin) : stdin);
    await w.close();
  }
  const out = await child.output();
  return {
    code: out.code,
    stdout: new TextDecoder().decode(out.stdout),
    stdoutBytes: out.stdout,
    stderr: new TextDecoder().decode(out.stderr),
  };
}

/** Runs `openssl args...`; throws with stderr when it fails. */
export async function openssl(args: string[], stdin?: string | Uint8Array): Promise<string> {
  const r = await runTool("openssl", args, stdin);
  if (r.code !== 0) throw new Error(`openssl ${args.join(" ")} failed (${r.code}): ${r.stderr}`);
  return r.stdout;
}

/** Writes text to a fresh temp file and returns its path. */
export async function tempFile(data: string | Uint8Array, suffix = ".pem"): Promise<string> {
  const path = await Deno.makeTempFile({ suffix });
  if (typeof data === "string") await Deno.writeTextFile(path, data);
  else await Deno.writeFile(path, data);
  return path;
}

/** `openssl x509 -noout -text` of a PEM certificate. */
export function x509Text(pem: string): Promise<string> {
  return openssl(["x509", "-noout", "-text", "-nameopt", "RFC2253"], pem);
}

/** SHA-256 hex of the DER public key of a certificate, computed by openssl. */
export async function opensslSpkiSha256(certPem: string): Promise<string> {
  const pub = await openssl(["x509", "-noout", "-pubkey"], certPem);
  const der = await runTool("openssl", ["pkey", "-pubin", "-outform", "der"], pub);
  if (der.code !== 0) throw new Error(`openssl pkey failed: ${der.stderr}`);
  const digest = await openssl(["dgst", "-sha256", "-r"], der.stdoutBytes);
  return digest.split(" ")[0].trim();
}

/** The public key (PEM) openssl derives from a private key PEM. */
export function opensslPubFromKey(keyPem: string): Promise<string> {
  return openssl(["pkey", "-pubout"], keyPem);
}

/** The public key (PEM) openssl extracts from a certificate. */
export function opensslPubFromCert(certPem: string): Promise<string> {
  return openssl(["x509", "-noout", "-pubkey"], certPem);
}
