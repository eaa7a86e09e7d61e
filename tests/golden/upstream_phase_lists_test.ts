// Golden comparison of the phase commands: `kubeadm init phase`, `join phase`, `reset phase`,
// `upgrade apply phase` and `upgrade node phase`, and every phase group below them, list the
// same commands with the same one-line help as upstream kubeadm v1.37.2's `--help` ("Available
// Commands", hidden phases excluded; upstream creates no command for a hidden phase); each
// workflow's `--help` lists its phases ("The ... command executes the following phases") byte
// for byte as upstream's. v1.37: `join phase control-plane-join etcd` is gone,
// `etcd-join` is no longer experimental, `kubelet-wait-bootstrap` is listed.
import assert from "node:assert/strict";
import type { Command } from "commander";
import { buildProgram } from "../../cli/program.ts";
import { formatHelp } from "../../cli/help.ts";
import { k8sBinDir } from "../support/k8s_bins.ts";
import { run } from "../support/commands.ts";

/**
 * Our one phase beyond upstream's (README, "Differences from upstream"): the last but one of
 * `init` and the last of `join`, it installs the certificate auto-renewal schedule when asked.
 */
const OUR_PHASE = "certs-auto-renewal";
const OUR_PHASE_LINE =
  "certs-auto-renewal: Install the certificate auto-renewal schedule (with --certificate-auto-renewal)";

/** `path` → its sub-commands as `name: short`, sorted. */
type Listing = Map<string, string[]>;

/** The "Available Commands" of upstream's `<path> --help`: `[name, short]` pairs. */
function availableCommands(help: string): [string, string][] {
  const lines = help.split("\n");
  const start = lines.indexOf("Available Commands:");
  if (start < 0) return [];
  const out: [string, string][] = [];
  for (const line of lines.slice(start + 1)) {
    const m = /^ {2}(\S+)\s+(.*)$/.exec(line);
    if (!m) break;
    out.push([m[1], m[2].trim()]);
  }
  return out;
}

async function upstreamListing(kubeadm: string, root: string[]): Promise<Listing> {
  const listing: Listing = new Map();
  const walk = async (path: string[]) => {
    const r = await run([kubeadm, ...path, "--help"]);
    assert.equal(r.code, 0, `${path.join(" ")} --help: ${r.stderr}`);
    const commands = availableCommands(r.stdout).filter(([name]) =>
      name !== "help" && name !== "completion"
    );
    if (commands.length === 0) return;
    listing.set(path.join(" "), commands.map(([n, s]) => `${n}: ${s}`).sort());
    for (const [name] of commands) await walk([...path, name]);
  };
  await walk(root);
  return listing;
}

/** Our whole command tree, as the CLI builds it. */
const program = await buildProgram();

function ourListing(root: string[]): Listing {
  let cmd: Command | undefined = program;
  for (const name of root) cmd = cmd?.commands.find((c) => c.name() === name);
  assert.ok(cmd, root.join(" "));
  const listing: Listing = new Map();
  const walk = (c: Command, path: string[]) => {
    const visible = c.commands.filter((s) =>
      !(s as unknown as { _hidden: boolean })._hidden && s.name() !== "help"
    );
    if (visible.length === 0) return;
    listing.set(
      path.join(" "),
      visible.map((s) => `${s.name()}: ${s.summary() || s.description()}`).sort(),
    );
    for (const s of visible) walk(s, [...path, s.name()]);
  };
  walk(cmd, root);
  return listing;
}

/** The phase list a workflow's help prints, from its first line to the closing fence. */
function phaseList(help: string): string {
  const m = /The "[^"]+" command executes the following phases:\n```\n[^`]*```\n/.exec(help);
  assert.ok(m, `no phase list in:\n${help}`);
  return m[0];
}

const WORKFLOWS = ["init", "join", "reset", "upgrade apply", "upgrade node"];

for (const workflow of WORKFLOWS) {
  Deno.test(`kubeadm ${workflow} phase lists the phases of upstream kubeadm v1.37.2`, async () => {
    const kubeadm = `${await k8sBinDir()}/kubeadm`;
    const root = [...workflow.split(" "), "phase"];
    const upstream = await upstreamListing(kubeadm, root);
    assert.ok(upstream.size > 0, "upstream lists phases");
    const ours = ourListing(root);
    const top = ours.get(root.join(" "))!;
    if (workflow === "init" || workflow === "join") {
      assert.ok(top.includes(OUR_PHASE_LINE), `${workflow} phase ${OUR_PHASE}`);
      ours.set(root.join(" "), top.filter((l) => l !== OUR_PHASE_LINE));
    }
    assert.deepEqual(Object.fromEntries(ours), Object.fromEntries(upstream));
  });
}

Deno.test("v1.37's join phases: etcd-join and kubelet-wait-bootstrap listed, control-plane-join etcd gone", () => {
  const join = ourListing(["join", "phase"]);
  assert.ok(join.get("join phase")!.includes("etcd-join: Join etcd for control plane nodes"));
  assert.ok(
    join.get("join phase")!.includes(
      "kubelet-wait-bootstrap: Wait for the kubelet to bootstrap itself",
    ),
  );
  assert.deepEqual(join.get("join phase control-plane-join"), [
    "all: Join a machine as a control plane instance",
    "mark-control-plane: Mark a node as a control-plane",
  ]);
});

Deno.test("every workflow's help lists its phases as upstream kubeadm v1.37.2's", async () => {
  const kubeadm = `${await k8sBinDir()}/kubeadm`;
  for (const workflow of WORKFLOWS) {
    const path = workflow.split(" ");
    const r = await run([kubeadm, ...path, "--help"]);
    assert.equal(r.code, 0, r.stderr);
    let cmd: Command | undefined = program;
    for (const name of path) cmd = cmd?.commands.find((c) => c.name() === name);
    assert.ok(cmd, workflow);
    const ours = phaseList(formatHelp(cmd)).split("\n");
    const addition = ours.filter((l) => l.startsWith(`${OUR_PHASE} `));
    assert.equal(addition.length, workflow === "init" || workflow === "join" ? 1 : 0, workflow);
    assert.equal(
      ours.filter((l) => !addition.includes(l)).join("\n"),
      phaseList(r.stdout),
      workflow,
    );
  }
});
