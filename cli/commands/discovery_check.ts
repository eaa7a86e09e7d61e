/**
 * `kubeadm discovery-check` (beyond upstream): the checks `kubeadm join` makes on the
 * `kube-public/cluster-info` ConfigMap before it trusts an API server, on a ConfigMap given as
 * a file, an `https://` URL (verified against the host's CA bundle) or stdin (`-`), printing
 * the verdict and its reason (`-o json`: the verdict object). Exit status 0 when verified, 1
 * when rejected. The token secret never appears in the output.
 *
 * @module
 */
import type { Command } from "commander";
import { addFlags, flagValues } from "../flags.ts";
import { stdinStream, stdout } from "../output.ts";
import { isNotFound, readTextFileCapped } from "../../adapters/deno/fs/capped_read.ts";

/** The command's options. */
export interface DiscoveryCheckOptions {
  clusterInfo?: string;
  token?: string;
  discoveryTokenCaCertHash?: string[];
  discoveryTokenUnsafeSkipCaVerification?: boolean;
  output?: string;
}

async function readStdin(): Promise<string> {
  const chunks: Uint8Array[] = [];
  for await (const c of stdinStream()) chunks.push(c);
  const all = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let off = 0;
  for (const c of chunks) {
    all.set(c, off);
    off += c.length;
  }
  return new TextDecoder().decode(all);
}

async function readClusterInfo(source: string): Promise<string> {
  const { FlagError } = await import("../../core/errors.ts");
  if (source === "-") return await readStdin();
  if (/^https:\/\//i.test(source)) {
    const { fetchDiscoveryUrl } = await import("../../adapters/deno/transport.ts");
    try {
      const { status, body } = await fetchDiscoveryUrl(source);
      if (status !== 200) throw new Error(`received status ${status}`);
      return typeof body === "string" ? body : new TextDecoder().decode(body);
    } catch (e) {
      throw new FlagError(`unable to fetch ${source}: ${e instanceof Error ? e.message : e}`, {
        field: "--cluster-info",
        value: source,
      });
    }
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(source)) {
    throw new FlagError("if a URL is used, the scheme must be https", {
      field: "--cluster-info",
      value: source,
    });
  }
  try {
    return await readTextFileCapped(source);
  } catch (e) {
    throw new FlagError(`unable to read ${source}`, {
      field: "--cluster-info",
      value: source,
      hint: isNotFound(e) ? "the file does not exist" : String(e),
    });
  }
}

/** Runs the check, prints the verdict (through `print`) and returns the exit status. */
export async function runDiscoveryCheck(
  opts: DiscoveryCheckOptions,
  print: (line: string) => void = stdout,
): Promise<number> {
  const { FlagError } = await import("../../core/errors.ts");
  const { checkClusterInfo } = await import("../../core/discovery/verdict.ts");
  const { platform } = await import("../adapters.ts");
  const output = opts.output ?? "text";
  if (output !== "text" && output !== "json") {
    throw new FlagError(`invalid output format ${JSON.stringify(output)}`, {
      field: "--output",
      value: output,
      hint: "use text or json",
    });
  }
  if (!opts.clusterInfo) {
    throw new FlagError("--cluster-info is required (a file, an https:// URL, or - for stdin)", {
      field: "--cluster-info",
    });
  }
  if (!opts.token) throw new FlagError("--token is required", { field: "--token" });
  const verdict = await checkClusterInfo({
    clusterInfo: await readClusterInfo(opts.clusterInfo),
    token: opts.token,
    caCertHashes: opts.discoveryTokenCaCertHash ?? [],
    unsafeSkipCAVerification: opts.discoveryTokenUnsafeSkipCaVerification ?? false,
  }, platform.crypto);
  if (output === "json") {
    print(JSON.stringify(verdict, null, 2));
  } else {
    print(`${verdict.verdict.toUpperCase()}: ${verdict.reason}`);
    for (const c of verdict.checks) print(`  [${c.status}] ${c.name}: ${c.message}`);
    if (verdict.ca) {
      print(
        `CA: ${verdict.ca.subject} (serial ${verdict.ca.serialNumber}, valid ${verdict.ca.notBefore} to ${verdict.ca.notAfter}) ${verdict.ca.pin}${
          verdict.ca.pinned ? " (pinned)" : ""
        }`,
      );
    }
  }
  return verdict.verdict === "verified" ? 0 : 1;
}

/** Registers `discovery-check`. */
export function registerDiscoveryCheck(program: Command): void {
  const cmd = program.command("discovery-check")
    .summary("Check a cluster-info ConfigMap against a bootstrap token and CA hashes (offline)")
    .description(
      "Runs, without joining, the checks kubeadm join makes on the kube-public/cluster-info ConfigMap before it trusts an API server: token format, CA hash syntax, the JWS signature of the kubeconfig for the token, the kubeconfig and its CA, and the CA public key pin. Prints the verdict and its reason; exits 0 when verified and 1 when rejected.",
    );
  addFlags(cmd, [
    "cluster-info",
    "token",
    "discovery-token-ca-cert-hash",
    "discovery-token-unsafe-skip-ca-verification",
    "output",
  ], "discovery-check")
    .action(async (_opts: unknown, c: Command) => {
      const flags = flagValues(c);
      const code = await runDiscoveryCheck({
        clusterInfo: flags["cluster-info"],
        token: flags.token,
        discoveryTokenCaCertHash: flags["discovery-token-ca-cert-hash"],
        discoveryTokenUnsafeSkipCaVerification:
          flags["discovery-token-unsafe-skip-ca-verification"],
        output: flags.output,
      });
      if (code !== 0) {
        const { DiscoveryError } = await import("../../core/errors.ts");
        throw new DiscoveryError("discovery-check: the cluster-info was rejected");
      }
    });
}
