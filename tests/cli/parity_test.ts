// CLI parity with upstream kubeadm v1.37.2: walks upstream's help tree (running the binary
// scripts/k8s-bins builds) and ours (the same help screens our command line prints), and fails
// on any command, usage line, alias or flag (shorthand, type, shown default, global or not) that one has
// and the other lacks — except our documented additions.
import assert from "node:assert/strict";
import type { Command } from "commander";
import { buildProgram } from "../../cli/program.ts";
import { formatHelp } from "../../cli/help.ts";
import { type HelpCommand, type HelpFlag, walkHelpTree } from "../support/help_tree.ts";
import { k8sBinDir } from "../support/k8s_bins.ts";
import { kubeadmLauncher, run } from "../support/commands.ts";

/**
 * What kubeadm-ts has beyond upstream, on purpose (README, "Differences from upstream"): each
 * pattern matches whole difference lines, and must match at least one.
 */
const OUR_ADDITIONS: readonly { lines: RegExp; why: string }[] = [
  {
    lines: /^extra command: kubeadm discovery-check$/,
    why:
      "checks a cluster-info ConfigMap against a token and CA pins, offline (also in the browser)",
  },
  {
    lines: /^extra flag: kubeadm (init|join) phase preflight -o, --output string$/,
    why: "-o json: a report of every preflight check",
  },
  {
    lines: /^extra flag: kubeadm certs renew \S+ --dry-run bool$/,
    why: "lists the files a renewal would write, writing none",
  },
  {
    lines: /^extra flag: kubeadm certs check-expiration --fail-if-expiring-within string$/,
    why: "exit status 4 when something expires within the window, for monitoring",
  },
  {
    lines: /^extra flag: kubeadm certs renew \S+ --restart bool$/,
    why: "restarts the static Pods reading what was renewed, one at a time, etcd last",
  },
  {
    lines: /^extra command: kubeadm certs auto-renewal( install| remove| status| run)?$/,
    why: "a systemd timer (or OpenRC periodic script) renewing and restarting before expiry",
  },
  {
    lines:
      /^extra command: kubeadm certs rotate-ca( phase( preflight| prepare| trust| reissue| finish| node)?)?$/,
    why: "rotates the cluster, front-proxy or etcd CA in stages, resuming an interrupted rotation",
  },
  {
    lines: /^extra flag: kubeadm (init|join) --certificate-auto-renewal bool$/,
    why: "installs the certificate auto-renewal schedule at the end of init / control-plane join",
  },
  {
    lines: /^extra command: kubeadm (init|join) phase certs-auto-renewal$/,
    why: "the phase that installs it (skipped unless --certificate-auto-renewal is given)",
  },
  {
    lines: /^extra command: kubeadm certs approve-kubelet-serving$/,
    why: "approves kubelets' serving CSRs for their own Node's addresses only",
  },
];

function describe(f: HelpFlag): string {
  return `${f.short ? `-${f.short}, ` : ""}--${f.name} ${f.type}${
    f.default ? ` (default ${f.default.replace(/^"(.*)"$/, "$1")})` : ""
  }${f.global ? " [global]" : ""}`;
}

/** The differences between two walked trees, as readable lines. */
function differences(
  upstream: Map<string, HelpCommand>,
  ours: Map<string, HelpCommand>,
): { lines: string[]; commonCommands: number; comparedFlags: number } {
  const lines: string[] = [];
  let commonCommands = 0;
  let comparedFlags = 0;
  for (const path of upstream.keys()) {
    if (!ours.has(path)) lines.push(`missing command: ${path}`);
  }
  for (const path of ours.keys()) {
    if (!upstream.has(path)) lines.push(`extra command: ${path}`);
  }
  for (const [path, up] of upstream) {
    const our = ours.get(path);
    if (!our) continue;
    commonCommands++;
    if (our.usage.join(" | ") !== up.usage.join(" | ")) {
      lines.push(
        `usage differs: ${path} upstream ${up.usage.join(" | ")}, ours ${our.usage.join(" | ")}`,
      );
    }
    for (const a of up.aliases) {
      if (!our.aliases.includes(a)) lines.push(`missing alias: ${path} ${a}`);
    }
    for (const a of our.aliases) {
      if (!up.aliases.includes(a)) lines.push(`extra alias: ${path} ${a}`);
    }
    const mine = new Map(our.flags.map((f) => [f.name, f]));
    const theirs = new Map(up.flags.map((f) => [f.name, f]));
    for (const [name, f] of theirs) {
      comparedFlags++;
      const m = mine.get(name);
      if (!m) lines.push(`missing flag: ${path} ${describe(f)}`);
      else if (describe(m) !== describe(f)) {
        lines.push(`flag differs: ${path} upstream ${describe(f)}, ours ${describe(m)}`);
      }
    }
    for (const [name, f] of mine) {
      if (!theirs.has(name)) lines.push(`extra flag: ${path} ${describe(f)}`);
    }
  }
  return { lines: lines.sort(), commonCommands, comparedFlags };
}

function commandAt(program: Command, path: string[]): Command {
  let cmd = program;
  for (const name of path) {
    const next = cmd.commands.find((c) => c.name() === name);
    assert.ok(next, `no command ${path.join(" ")}`);
    cmd = next;
  }
  return cmd;
}

function allPaths(cmd: Command, prefix: string[] = []): string[][] {
  return [prefix, ...cmd.commands.flatMap((c) => allPaths(c, [...prefix, c.name()]))];
}

Deno.test("CLI parity: every upstream v1.37.2 command, alias and flag, and nothing else", async () => {
  const bin = `${await k8sBinDir()}/kubeadm`;
  const version = await run([bin, "version", "-o", "short"]);
  assert.equal(version.stdout.trim(), "v1.37.2");
  const upstream = await walkHelpTree(async (path) => {
    const r = await run([bin, ...path, "--help"]);
    assert.equal(r.code, 0, `${path.join(" ")} --help: ${r.stderr}`);
    return r.stdout;
  });
  const program = await buildProgram();
  const ours = await walkHelpTree((path) => Promise.resolve(formatHelp(commandAt(program, path))));

  // Nothing of ours hides from the walk (upstream registers no hidden commands).
  for (const path of allPaths(program)) {
    assert.ok(ours.has(["kubeadm", ...path].join(" ")), `hidden command: ${path.join(" ")}`);
  }

  const { lines, commonCommands, comparedFlags } = differences(upstream, ours);
  const additions = lines.filter((l) => OUR_ADDITIONS.some((a) => a.lines.test(l)));
  const unexplained = lines.filter((l) => !additions.includes(l));
  console.log(
    `parity: upstream ${upstream.size} commands, ours ${ours.size}; ${commonCommands} commands and ${comparedFlags} upstream flags compared; ` +
      `${additions.length} documented additions, ${unexplained.length} unexplained`,
  );
  assert.deepEqual(unexplained, [], `unexplained differences:\n${unexplained.join("\n")}`);
  for (const a of OUR_ADDITIONS) {
    assert.ok(additions.some((l) => a.lines.test(l)), `no longer an addition: ${a.lines}`);
  }
});

Deno.test("the help our command line prints is the screen the parity test reads", async () => {
  const program = await buildProgram();
  for (const path of [[], ["init", "phase", "certs", "ca"], ["token", "create"]]) {
    const r = await run([kubeadmLauncher(), ...path, "--help"]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, formatHelp(commandAt(program, path)));
  }
  // A bare `kubeadm` prints the same, and succeeds, as upstream's.
  const bare = await run([kubeadmLauncher()]);
  assert.equal(bare.code, 0, bare.stderr);
  assert.equal(bare.stdout, formatHelp(program));
});
