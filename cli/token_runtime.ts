/**
 * The runtime side of `kubeadm token create|list|delete`: finding the kubeconfig (upstream's
 * search: `--kubeconfig`, else the first existing of `$KUBECONFIG`'s entries or
 * `~/.kube/config`, then `/etc/kubernetes/admin.conf`), and building the client over it (the
 * Deno transport, or in `--dry-run` the recording dry-run transport).
 *
 * With `--rootfs`, the searched paths resolve under the node's root, as upstream's chroot
 * would; an explicit `--kubeconfig` is a path on this machine, like `--config`.
 *
 * @module
 */
import { KubeconfigFile, KUBERNETES_DIR } from "../core/constants.ts";
import { KubeadmError } from "../core/errors.ts";
import type { Printer } from "../core/ports/printer.ts";
import { KubeClient } from "../core/kube/client.ts";
import { connectionFromKubeconfig } from "../core/kube/kubeconfig_connection.ts";
import type { Transport } from "../core/ports/transport.ts";
import { type Kubeconfig, parseKubeconfig } from "../core/kubeconfig/kubeconfig.ts";
import { isNotFound, readFileCapped } from "../adapters/deno/fs/capped_read.ts";
import { underRoot } from "../adapters/deno/files.ts";
import { envGet, networkAllowed } from "../adapters/deno/process.ts";
import { isRegularFile } from "../adapters/deno/fs/regular_file.ts";
import { connectTransport, dryRunTransport, nodeFiles, platform } from "./adapters.ts";

/** Flags every `token` sub-command shares. */
export interface TokenCommonFlags {
  kubeconfig?: string;
  dryRun?: boolean;
  rootfs?: string;
}

/** A connected token command. */
export interface TokenConnection {
  client: KubeClient;
  kubeconfig: Kubeconfig;
  /** The kubeconfig path used (as searched, i.e. under `--rootfs` when given). */
  path: string;
  close(): void;
}

/** Upstream's `GetKubeConfigPath`: the kubeconfig a token command uses. */
function findKubeconfig(flags: TokenCommonFlags): string {
  if (flags.kubeconfig) return flags.kubeconfig;
  const root = flags.rootfs ?? "/";
  const env = envGet("KUBECONFIG");
  const home = envGet("HOME");
  const precedence = env
    ? env.split(":").filter((p) => p !== "")
    : home
    ? [`${home.replace(/\/+$/, "")}/.kube/config`]
    : [];
  precedence.push(`${KUBERNETES_DIR}/${KubeconfigFile.admin}`);
  const candidates = precedence.map((p) => underRoot(root, p));
  return candidates.find(isRegularFile) ?? candidates[0];
}

/** Reads the kubeconfig and connects (see the module documentation). */
export async function connectToken(
  flags: TokenCommonFlags,
  out: Printer,
): Promise<TokenConnection> {
  const path = findKubeconfig(flags);
  let text: Uint8Array;
  try {
    text = await readFileCapped(path);
  } catch (e) {
    const reason = isNotFound(e) ? "no such file or directory" : String(e);
    throw new KubeadmError(`failed to load admin kubeconfig: open ${path}: ${reason}`, {
      field: "--kubeconfig",
      hint: "point --kubeconfig at the cluster's admin.conf",
    });
  }
  const kubeconfig = parseKubeconfig(text, path);
  const params = await connectionFromKubeconfig(kubeconfig, {
    files: await nodeFiles(flags.kubeconfig ? "/" : flags.rootfs ?? "/"),
  });
  let transport: Transport;
  let close = () => {};
  if (flags.dryRun) {
    // Writes are recorded and printed; reads go to the cluster when the network is allowed
    // (the launcher grants none in dry-run), else to the empty simulated cluster.
    const dry = await dryRunTransport({ out });
    const real = networkAllowed() ? await connectTransport(params) : undefined;
    close = () => real?.close();
    transport = (req, limits) =>
      req.method === "GET" && real ? real.transport(req, limits) : dry.transport(req, limits);
  } else {
    const real = await connectTransport(params);
    transport = real.transport;
    close = real.close;
  }
  return {
    client: new KubeClient({
      server: params.server,
      transport,
      clock: platform.clock,
      sleep: platform.sleep,
    }),
    kubeconfig,
    path,
    close,
  };
}
