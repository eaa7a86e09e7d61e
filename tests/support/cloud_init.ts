/**
 * Debian's cloud-init (22.4, the `cloud-init` package `scripts/test` installs) for tests:
 *
 * - {@link cloudInitSchema}: `cloud-init schema --config-file`, after rendering a
 *   `## template: jinja` user-data with `cloud-init devel render` for the machine's meta-data
 *   ({@link renderUserData}; 22.4's schema check refuses the header);
 * - {@link runCloudInit}: cloud-init's four boot stages (`init --local`, `init`,
 *   `modules --mode=config`, `modules --mode=final`) run inside a real test node (node.ts) from a
 *   NoCloud seed (`/var/lib/cloud/seed/nocloud/{meta-data,user-data}`), as a machine's boot runs
 *   them: the datasource is found, the user-data's jinja rendered with the meta-data,
 *   `write_files` written, `runcmd` turned into a script and run by `scripts-user`. A node's
 *   `/etc` and `/var` are copy-on-write overlays and its `/run` its own, so cloud-init's state
 *   (`/var/lib/cloud`, `/run/cloud-init`, its logs in `/var/log`) and the node's
 *   `/etc/cloud/cloud.cfg.d/` stay in the node. That configuration keeps cloud-init to the
 *   modules these machines take: no network configuration (the node's link is the harness's),
 *   no default user; the hostname is the meta-data's (`set_hostname`, in the node's own UTS
 *   namespace and `/etc/hostname`), so the Node is named as the machine.
 *
 * @module
 */
import { run, type RunResult } from "./commands.ts";
import type { TestNode } from "./node.ts";

/** The node's cloud-init system configuration: the NoCloud datasource and these modules only. */
export const NODE_CLOUD_CFG = `datasource_list: [NoCloud]
network: {config: disabled}
users: []
preserve_hostname: false
manage_etc_hosts: false
cloud_init_modules: [set_hostname, write-files]
cloud_config_modules: [runcmd]
cloud_final_modules: [write-files-deferred, scripts-user, final-message]
`;

/** NoCloud meta-data: the instance id (a new id is a first boot) and the local hostname. */
export interface CloudMetaData {
  instanceId: string;
  localHostname: string;
}

function metaDataText(m: CloudMetaData): string {
  return `instance-id: ${m.instanceId}\nlocal-hostname: ${m.localHostname}\n`;
}

/**
 * `userData` as cloud-init reads it on the machine of `meta`: a `## template: jinja` user-data
 * rendered with `cloud-init devel render` and that machine's instance data, any other returned
 * as it is.
 */
export async function renderUserData(userData: string, meta: CloudMetaData): Promise<string> {
  if (!userData.startsWith("## template: jinja\n")) return userData;
  const dir = await Deno.makeTempDir({ prefix: "kts-cloud-init-render-" });
  try {
    await Deno.writeTextFile(`${dir}/user-data`, userData, { mode: 0o600 });
    await Deno.writeTextFile(
      `${dir}/instance-data.json`,
      JSON.stringify({
        ds: { meta_data: { "instance-id": meta.instanceId, local_hostname: meta.localHostname } },
        v1: { local_hostname: meta.localHostname, instance_id: meta.instanceId },
      }),
    );
    const r = await run([
      "cloud-init",
      "devel",
      "render",
      "--instance-data",
      `${dir}/instance-data.json`,
      `${dir}/user-data`,
    ]);
    if (r.code !== 0) throw new Error(`cloud-init devel render: ${r.stderr}`);
    return r.stdout;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/**
 * What `cloud-init schema --config-file` says of `userData`, rendered first for the machine of
 * `meta` ({@link renderUserData}: 22.4's schema check refuses the jinja header).
 */
export async function cloudInitSchema(
  userData: string,
  meta: CloudMetaData = { instanceId: "iid-schema", localHostname: "node" },
): Promise<RunResult> {
  const file = await Deno.makeTempFile({ prefix: "kts-cloud-init-schema-", suffix: ".yaml" });
  try {
    await Deno.writeTextFile(file, await renderUserData(userData, meta), { mode: 0o600 });
    return await run(["cloud-init", "schema", "--config-file", file]);
  } finally {
    await Deno.remove(file);
  }
}

/** The outcome of cloud-init's boot stages on a node. */
export interface CloudInitRun {
  /** Each stage's command and result, in order. */
  stages: { stage: string; result: RunResult }[];
  /** `/run/cloud-init/result.json` (`v1.errors`: every module failure, `runcmd` included). */
  result: { v1: { datasource: string; errors: string[] } };
  /** `/var/log/cloud-init-output.log`: the stages' and the runcmd script's output. */
  output: string;
}

/** cloud-init's boot stages, as its systemd units run them, in order. */
const STAGES: readonly string[][] = [
  ["init", "--local"],
  ["init"],
  ["modules", "--mode=config"],
  ["modules", "--mode=final"],
];

/**
 * Boots cloud-init on `node` from a NoCloud seed of `userData` and `meta` (see the module
 * documentation): writes the node's cloud.cfg.d file and the seed, then runs the four stages
 * in order. `env` reaches the `runcmd` script (e.g. a PATH). Returns what each stage did; the
 * caller decides what counts as success (`result.v1.errors`, the files written).
 */
export async function runCloudInit(
  node: Pick<TestNode, "exec">,
  userData: string,
  meta: CloudMetaData,
  opts: { env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<CloudInitRun> {
  const write = async (path: string, text: string, mode: string) => {
    const r = await node.exec(
      [
        "sh",
        "-c",
        'mkdir -p "$(dirname "$1")" && umask 077 && cat > "$1" && chmod "$2" "$1"',
        "sh",
        path,
        mode,
      ],
      { stdin: text },
    );
    if (r.code !== 0) throw new Error(`writing ${path} on the node: ${r.stderr}`);
  };
  await write("/etc/cloud/cloud.cfg.d/90-kubeadm-ts-node.cfg", NODE_CLOUD_CFG, "0644");
  await write("/var/lib/cloud/seed/nocloud/meta-data", metaDataText(meta), "0600");
  await write("/var/lib/cloud/seed/nocloud/user-data", userData, "0600");
  const stages: CloudInitRun["stages"] = [];
  for (const args of STAGES) {
    const result = await node.exec(["cloud-init", ...args], {
      env: opts.env,
      timeoutMs: opts.timeoutMs ?? 10 * 60_000,
    });
    stages.push({ stage: args.join(" "), result });
    if (result.code !== 0 && args[0] === "init") break; // no datasource: nothing further runs
  }
  const read = async (path: string) => (await node.exec(["cat", path])).stdout;
  const resultText = await read("/run/cloud-init/result.json");
  return {
    stages,
    result: resultText
      ? JSON.parse(resultText)
      : { v1: { datasource: "", errors: ["no result.json"] } },
    output: await read("/var/log/cloud-init-output.log"),
  };
}

/** Fails with the stages' output unless cloud-init ran every stage without an error. */
export function assertCloudInitSucceeded(what: string, r: CloudInitRun): void {
  const failed = r.stages.filter((s) => s.result.code !== 0);
  if (failed.length === 0 && r.result.v1.errors.length === 0) return;
  throw new Error(
    `cloud-init on ${what}: ${
      failed.map((s) => `${s.stage} exited ${s.result.code}`).join(", ")
    } errors ${JSON.stringify(r.result.v1.errors)}\n--- cloud-init-output.log:\n${
      r.output.slice(-6000)
    }`,
  );
}
