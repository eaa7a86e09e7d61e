// A command run without commander (cli/direct.ts) gets exactly the flags commander would give
// it (values and the names set; join's endpoint argument), and leaves every other command line
// (help, unknown or boolean flags, extra arguments, missing values, groups, hidden phases) to
// commander; through the real command line, `version`, `init phase certs all` and join's
// argument do the same either way.
import assert from "node:assert/strict";
import type { Command } from "commander";
import { createProgram } from "../../cli/program.ts";
import {
  addFlags,
  type FlagName,
  type FlagValues,
  flagValues,
  normaliseArgv,
  setFlagNames,
} from "../../cli/flags.ts";
import { directFlags } from "../../cli/direct.ts";
import { directWorkflowCommand } from "../../cli/workflow_command.ts";
import { INIT_COMMAND } from "../../cli/commands/init.ts";
import { joinCommand } from "../../cli/commands/join.ts";
import { VERSION_FLAGS } from "../../cli/commands/version.ts";
import { kubeadmLauncher, run } from "../support/commands.ts";

/** What commander gives an action of a command accepting `flags` for `args`, or its error. */
async function viaCommander(
  command: "version" | "init",
  flags: readonly string[],
  args: string[],
): Promise<{ values: FlagValues; set: string[] } | Error> {
  let given: { values: FlagValues; set: string[] } | undefined;
  const program = createProgram((p) => {
    addFlags(p.command(command), flags, command).action((_o: unknown, c: Command) => {
      given = { set: setFlagNames(c), values: flagValues(c) };
    });
  });
  try {
    await program.parseAsync(normaliseArgv([command, ...args]), { from: "user" });
    return given!;
  } catch (e) {
    return e as Error;
  }
}

/** directFlags' result, or the error reading the values throws. */
function viaDirect(
  command: "version" | "init",
  flags: readonly FlagName[],
  args: string[],
): { values: FlagValues; set: string[] } | Error | undefined {
  const given = directFlags(command, flags, args);
  if (!given) return undefined;
  try {
    return { set: [...given.set], values: given.values() };
  } catch (e) {
    return e as Error;
  }
}

Deno.test("direct runs: the values commander gives, defaults and global flags included", async () => {
  for (
    const args of [
      [],
      ["-o", "short"],
      ["-o=json"],
      ["--output=yaml"],
      ["--output", "json", "--output", "short"],
      ["--output="],
      ["--rootfs", "/r", "-v", "5", "-o", "short"],
      ["--v=3", "--vmodule", "a=1,b=2"],
      ["-v", "x"],
      ["--vmodule=bad"],
    ]
  ) {
    const direct = viaDirect("version", VERSION_FLAGS, args);
    assert.ok(direct !== undefined, `${args.join(" ")}: run directly`);
    const commander = await viaCommander("version", VERSION_FLAGS, args);
    if (commander instanceof Error) {
      assert.ok(direct instanceof Error, `${args.join(" ")}: commander fails, direct did not`);
      assert.equal(direct.message, commander.message, args.join(" "));
    } else {
      assert.deepEqual(direct, commander, args.join(" "));
    }
  }
});

Deno.test("direct runs of a phase: the values and set names commander gives", async () => {
  const certs = directWorkflowCommand(INIT_COMMAND, {}, ["phase", "certs", "all"]);
  assert.ok(certs);
  for (
    const args of [
      ["--config", "c.yaml", "--rootfs", "/r"],
      ["--cert-dir=/p", "--apiserver-advertise-address", "192.0.2.1", "-v", "2"],
      ["--kubernetes-version", "v1.37.2", "--control-plane-endpoint=cp:6443"],
    ]
  ) {
    const direct = viaDirect("init", certs.flags, args);
    assert.ok(direct !== undefined, `${args.join(" ")}: run directly`);
    assert.deepEqual(direct, await viaCommander("init", certs.flags, args), args.join(" "));
  }
  for (
    const args of [
      ["--dry-run", "--ignore-preflight-errors=a,b", "--ignore-preflight-errors", " c ,"],
      ["--dry-run=false", "--upload-certs=1", "--skip-phases", "preflight,certs/ca"],
      ["--no-dry-run", "--dry-run", "--skip-token-print=f", "--ignore-preflight-errors="],
      ["--feature-gates", "ControlPlaneKubeletLocalMode=true", "--token-ttl=1h"],
      ["--config=c.yaml", "--token-ttl", "bad"],
    ]
  ) {
    const direct = viaDirect("init", INIT_COMMAND.flags, args);
    assert.ok(direct !== undefined, `${args.join(" ")}: run directly`);
    const commander = await viaCommander("init", INIT_COMMAND.flags, args);
    if (commander instanceof Error) {
      assert.ok(direct instanceof Error, `${args.join(" ")}: commander fails, direct did not`);
      assert.equal(direct.message, commander.message, args.join(" "));
    } else {
      assert.deepEqual(direct, commander, args.join(" "));
    }
  }
  // A bad boolean value is commander's (normaliseArgv's error).
  assert.equal(viaDirect("init", INIT_COMMAND.flags, ["--dry-run=maybe"]), undefined);
  assert.equal(viaDirect("init", INIT_COMMAND.flags, ["--dry-run", "x"]), undefined);
});

Deno.test("direct runs: the phase commands commander would build, nothing else", () => {
  const only = (path: string[]) => directWorkflowCommand(INIT_COMMAND, {}, path) !== undefined;
  assert.ok(only([]));
  assert.ok(only(["phase", "certs", "all"]));
  assert.ok(only(["phase", "kubeconfig", "admin"]));
  assert.ok(only(["phase", "upload-config", "kubeadm"]));
  assert.ok(only(["phase", "uploadconfig", "kubeadm"]), "an alias");
  assert.ok(!only(["phase"]), "a group");
  assert.ok(!only(["phase", "certs"]), "a group");
  assert.ok(!only(["phase", "nope"]));
  assert.ok(!only(["phase", "certs", "all", "extra"]));
  assert.ok(!only(["certs"]));
  // join and its phases that take `[api-server-endpoint]`: one word after the command's names.
  const join = (path: string[]) => directWorkflowCommand(joinCommand(), {}, path) !== undefined;
  assert.ok(join([]));
  assert.ok(join(["10.0.0.1:6443"]));
  assert.ok(!join(["10.0.0.1:6443", "extra"]));
  assert.ok(join(["phase", "preflight"]));
  assert.ok(join(["phase", "preflight", "10.0.0.1:6443"]));
  assert.ok(!join(["phase", "preflight", "10.0.0.1:6443", "extra"]));
  assert.ok(join(["phase", "kubelet-start", "10.0.0.1:6443"]));
  assert.ok(!join(["phase", "control-plane-prepare"]), "a group");
  assert.ok(!join(["phase", "control-plane-prepare", "10.0.0.1:6443"]), "a group");
  assert.ok(join(["phase", "control-plane-prepare", "download-certs", "10.0.0.1:6443"]));
  assert.ok(
    !join(["phase", "control-plane-join", "mark-control-plane", "10.0.0.1:6443"]),
    "no argument",
  );
});

Deno.test("direct runs: every other command line is left to commander", () => {
  for (
    const args of [
      ["--help"],
      ["-h"],
      ["extra"],
      ["--output"],
      ["-o", "--rootfs"],
      ["--token", "x"],
      ["--dry-run"],
      ["--no-output"],
      ["--unknown=1"],
      ["--", "x"],
      ["-ojson"],
    ]
  ) {
    assert.equal(viaDirect("version", VERSION_FLAGS, args), undefined, args.join(" "));
  }
});

Deno.test("kubeadm version prints the same run directly and through commander", async () => {
  for (const format of ["short", "json", "yaml", "xml"]) {
    // `-o <format>` runs directly; the joined shorthand `-o<format>` is parsed by commander.
    const direct = await run([kubeadmLauncher(), "version", "-o", format]);
    const commander = await run([kubeadmLauncher(), "version", `-o${format}`]);
    assert.equal(direct.code === 0, format !== "xml", direct.stderr);
    assert.deepEqual(direct, commander, format);
  }
});

Deno.test("init phase certs all writes the same run directly and through commander", async () => {
  const roots = [await Deno.makeTempDir(), await Deno.makeTempDir()];
  try {
    const results = [];
    for (const [i, root] of roots.entries()) {
      await Deno.writeTextFile(
        `${root}/cfg.yaml`,
        "apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\nencryptionAlgorithm: ECDSA-P256\n",
      );
      // `-v0` (a joined shorthand) is parsed by commander; `-v 0` runs directly.
      const verbosity = i === 0 ? ["-v", "0"] : ["-v0"];
      const args = ["init", "phase", "certs", "all", "--config", `${root}/cfg.yaml`];
      const r = await run([kubeadmLauncher(), ...args, "--rootfs", root, ...verbosity]);
      const files: string[] = [];
      for await (const e of Deno.readDir(`${root}/etc/kubernetes/pki`)) files.push(e.name);
      results.push({ ...r, stdout: r.stdout.replaceAll(root, "<root>"), files: files.sort() });
    }
    assert.equal(results[0].code, 0, results[0].stderr);
    assert.deepEqual(results[0], results[1]);
  } finally {
    for (const root of roots) await Deno.remove(root, { recursive: true });
  }
});

Deno.test("join's endpoint argument is the same run directly and through commander", async () => {
  const discovery = [
    "--token",
    "abcdef.0123456789abcdef",
    "--discovery-token-unsafe-skip-ca-verification",
  ];
  for (
    const args of [
      ["join", "not-an-endpoint", ...discovery],
      ["join", "phase", "preflight", "not an endpoint", ...discovery, "--dry-run"],
      ["join", "10.0.0.1:6443", "--config", "/dev/null"],
    ]
  ) {
    // `-v0` (a joined shorthand) is parsed by commander; `-v 0` runs directly.
    const direct = await run([kubeadmLauncher(), ...args, "-v", "0"]);
    const commander = await run([kubeadmLauncher(), ...args, "-v0"]);
    assert.equal(direct.code, 3, direct.stderr);
    assert.match(direct.stderr, /"not(-| )an(-| )endpoint"|no JoinConfiguration/);
    assert.deepEqual(direct, commander, args.join(" "));
  }
});

Deno.test("config print prints the same run directly and through commander", async () => {
  for (const name of ["init-defaults", "join-defaults", "reset-defaults", "upgrade-defaults"]) {
    const extra = name === "init-defaults" ? ["--component-configs=KubeProxyConfiguration"] : [];
    // `-v0` (a joined shorthand) is parsed by commander; `-v 0` runs directly.
    const direct = await run([kubeadmLauncher(), "config", "print", name, ...extra, "-v", "0"]);
    const commander = await run([kubeadmLauncher(), "config", "print", name, ...extra, "-v0"]);
    assert.equal(direct.code, 0, direct.stderr);
    assert.deepEqual(direct, commander, name);
  }
});

Deno.test("direct runs of config: the print commands only", async () => {
  const { directConfigCommand } = await import("../../cli/commands/config.ts");
  assert.ok(directConfigCommand(["print", "init-defaults"]));
  assert.ok(!directConfigCommand(["print"]));
  assert.ok(!directConfigCommand(["print", "nope"]));
  assert.ok(!directConfigCommand(["images", "list"]));
  assert.ok(!directConfigCommand(["print", "init-defaults", "x"]));
});
