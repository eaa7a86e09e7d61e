/**
 * Golden comparison of the upgrade commands against upstream kubeadm v1.37.2 on the same real
 * node: both run inside it.
 *
 * An `upgrade apply|node --dry-run` must print the same files byte for byte, the same API
 * actions in the same order with the same objects attached to its writes, the same addon
 * objects and the same log, except for the differences README lists: upstream reads the CoreDNS
 * objects twice (two checks), a Go zero value (`null`, `{}`, `readOnly: false`) is not printed
 * by kubeadm-ts, upstream names its temporary dry-run directory for the kubelet files, and
 * upstream prints SystemVerification's report when the check fails where a dry run of ours could
 * not run it. Run with `--v=N`, both must log the same messages ({@link assertLogAsUpstream}).
 *
 * @module
 */
import assert from "node:assert/strict";
import type { ClusterNode } from "./cluster.ts";
import type { RunResult } from "./commands.ts";
import { isStructuredLine, klogMessages } from "./klog_lines.ts";
import {
  dropEmptyFields,
  type PrintedAction,
  splitUpgradeDryRun,
  type UpgradeDryRun,
} from "./dry_run_output.ts";

/** Both sides' stdout and stderr. */
export interface BothOutputs {
  ours: string;
  theirs: string;
  oursStderr: string;
  theirsStderr: string;
  /** Upstream's dry-run directory (`KUBEADM_UPGRADE_DRYRUN_DIR`). */
  upstreamDryRunDir: string;
}

/** Runs `args` with ours and with upstream's kubeadm on `node`; both must succeed. */
export async function oursAndUpstream(node: ClusterNode, args: string[]): Promise<BothOutputs> {
  const ours = await node.kubeadm(args);
  assert.equal(ours.code, 0, `ours: ${args.join(" ")}\n${ours.stdout}\n${ours.stderr}`);
  // Upstream's dry run writes its manifests into a directory of its own: the node's TMPDIR.
  const dir = await Deno.makeTempDir({ dir: `${node.machine.dir}/tmp`, prefix: "upstream-" });
  try {
    const theirs = await node.exec([`${node.binDir}/kubeadm`, ...args], {
      env: { KUBEADM_UPGRADE_DRYRUN_DIR: dir },
    });
    assert.equal(
      theirs.code,
      0,
      `upstream: ${args.join(" ")}\n${theirs.stdout}\n${theirs.stderr}`,
    );
    await keepForInspection(node, args, ours, theirs);
    return {
      ours: ours.stdout,
      theirs: theirs.stdout,
      oursStderr: ours.stderr,
      theirsStderr: theirs.stderr,
      upstreamDryRunDir: dir,
    };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/**
 * With `KTS_GOLDEN_DIR` set, both sides' output goes into that directory too (named for the node
 * and the command), for a human to diff after a long run.
 */
async function keepForInspection(
  node: ClusterNode,
  args: string[],
  ours: RunResult,
  theirs: RunResult,
): Promise<void> {
  const dir = Deno.env.get("KTS_GOLDEN_DIR");
  if (!dir) return;
  await Deno.mkdir(dir, { recursive: true });
  const base = `${dir}/${node.name}_${args.join("_").replace(/[^\w.=-]+/g, "-")}`;
  for (const [side, r] of [["ours", ours], ["theirs", theirs]] as const) {
    await Deno.writeTextFile(`${base}.${side}.stdout`, r.stdout);
    await Deno.writeTextFile(`${base}.${side}.stderr`, r.stderr);
  }
}

/**
 * An upgrade's `--v=N` messages as compared: the health-check Job's name untimed, a poll's
 * repeated line counted once (how often it repeats is timing), and upstream's dry-run directory
 * (`KUBEADM_UPGRADE_DRYRUN_DIR`) read as the manifest folder kubeadm-ts plans its
 * manifests in. Upstream's structured lines are client-go's and the CRI client's, not kubeadm's.
 */
function upgradeLogMessages(stderr: string, upstreamDir?: string): string[] {
  const out: string[] = [];
  for (let m of klogMessages(stderr)) {
    if (upstreamDir !== undefined && isStructuredLine(m)) continue;
    m = timestamped(m);
    if (upstreamDir !== undefined) {
      m = m.replace(` to "${upstreamDir}/`, ' to "/etc/kubernetes/manifests/');
    }
    if (m !== out[out.length - 1] || !/, retrying/.test(m)) out.push(m);
  }
  return out;
}

/**
 * Asserts that a run of ours logged upstream's `--v=N` messages in upstream's order; returns
 * ours (for a test to check that a line it needs is there).
 */
export function assertLogAsUpstream(r: BothOutputs): string[] {
  const ours = upgradeLogMessages(r.oursStderr);
  assert.deepEqual(
    ours,
    upgradeLogMessages(r.theirsStderr, r.upstreamDryRunDir),
    "the --v log lines",
  );
  return ours;
}

const timestamped = (s: string) =>
  s.replace(/upgrade-health-check-\d+/g, "upgrade-health-check-<ts>");

function describe(a: PrintedAction): string {
  return timestamped(`${a.verb} ${a.resource} ${a.namespace ?? ""}/${a.name ?? ""}`);
}

/**
 * The actions as comparable lines: a poll's repeated reads counted once; upstream's first
 * CoreDNS read pair (its CoreDNSUnsupportedPlugins check) dropped when `dropCoreDNSPair`.
 */
function actionLines(d: UpgradeDryRun, dropCoreDNSPair: boolean): string[] {
  const lines = d.actions.map(describe).filter((l, i, all) =>
    i === 0 || l !== all[i - 1] || !/^(GET|LIST) /.test(l)
  );
  const pair = ["GET configmaps kube-system/coredns", "LIST deployments /"];
  const i = lines.indexOf(pair[0]);
  if (
    dropCoreDNSPair && i >= 0 && lines[i + 1] === pair[1] && lines[i + 2] === pair[0] &&
    lines[i + 3] === pair[1]
  ) {
    lines.splice(i, 2);
  }
  return lines;
}

/** Objects compared alike: Go's zero values dropped, the health-check Job's name untimed. */
function comparable(v: unknown): unknown {
  return dropEmptyFields(
    JSON.parse(timestamped(JSON.stringify(v))),
    (path, x) => (path.endsWith(".readOnly") && x === false ? undefined : x),
  );
}

/** The log but for the kubelet files' dry-run paths (README, differences). */
function logLines(d: UpgradeDryRun): string[] {
  return d.log
    .filter((l) => !/^\[kubelet-start\] Writing kubelet configuration to file /.test(l))
    .map((l) => l.replace(/(back up kubelet config file to ).*(\/config\.yaml)$/, "$1<dir>$2"));
}

/** The line before SystemVerification's report, and a line of the report (its colours too). */
const VERIFICATION_FAILED =
  "[preflight] The system verification failed. Printing the output from the verification:";
// deno-lint-ignore no-control-regex -- the report's lines start with a terminal colour code
const VERIFICATION_LINE = /^\x1b\[0;37m[A-Z0-9_]+\x1b\[0m: /;

/**
 * Upstream's log without SystemVerification's report when ours could not run the check: a dry
 * run of kubeadm-ts runs without the permissions it needs (`kubelet --version`, `/proc`, `/sys`:
 * README, differences), says so in its warning, and has no report to print.
 */
function withoutUnrunVerification(theirs: string[], oursStderr: string): string[] {
  if (
    !/\[WARNING SystemVerification\]: could not be checked without more permissions/.test(
      oursStderr,
    )
  ) {
    return theirs;
  }
  const i = theirs.indexOf(VERIFICATION_FAILED);
  if (i < 0) return theirs;
  let end = i + 1;
  while (end < theirs.length && VERIFICATION_LINE.test(theirs[end])) end++;
  return [...theirs.slice(0, i), ...theirs.slice(end)];
}

/** Asserts an `upgrade apply|node --dry-run` printed what upstream's did (see the module). */
export function assertDryRunAsUpstream(r: BothOutputs): UpgradeDryRun {
  const ours = splitUpgradeDryRun(r.ours);
  const theirs = splitUpgradeDryRun(r.theirs);
  assert.deepEqual(ours.files, theirs.files, "the files printed");
  assert.deepEqual(actionLines(ours, false), actionLines(theirs, true), "the API actions");
  const writes = (d: UpgradeDryRun) =>
    d.actions.filter((a) => a.verb !== "GET" && a.verb !== "LIST").map((a) => comparable(a.object));
  assert.deepEqual(writes(ours), writes(theirs), "the objects written");
  assert.deepEqual(
    comparable(ours.addonObjects),
    comparable(theirs.addonObjects),
    "the addon objects",
  );
  assert.deepEqual(
    logLines(ours),
    withoutUnrunVerification(logLines(theirs), r.oursStderr),
    "the log",
  );
  return ours;
}

/**
 * `upgrade diff`'s output with its per-manifest diffs in a fixed order: upstream walks a Go map
 * of the components, so its order changes from run to run.
 */
export function diffInFileOrder(text: string): string[] {
  const head: string[] = [];
  const blocks: string[][] = [];
  // The output's final newline ends whichever manifest upstream's map order puts last.
  for (const line of text.replace(/\n$/, "").split("\n")) {
    if (line.startsWith("--- ")) blocks.push([line]);
    else if (blocks.length) blocks[blocks.length - 1].push(line);
    else head.push(line);
  }
  return [...head, ...blocks.map((b) => b.join("\n")).sort()];
}
