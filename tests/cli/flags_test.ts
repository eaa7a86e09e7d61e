// Flag parsing as pflag does it, from the one registry, for every command: spellings, slices,
// booleans, typed values, and errors that name the flag but never echo a mistyped flag's value.
// Through a probe command built like every other (createProgram + addFlags), and through the
// real command line for the cases the issues name.
import assert from "node:assert/strict";
import type { Command } from "commander";
import { createProgram } from "../../cli/program.ts";
import { addFlags, type FlagValues, flagValues, normaliseArgv } from "../../cli/flags.ts";
import { UsageError } from "../../cli/command.ts";
import { KubeadmError } from "../../core/errors.ts";
import { kubeadmLauncher, run } from "../support/commands.ts";

const SECRET_TOKEN = "abcdef.0123456789abcdef";
const SECRET_KEY = "0f".repeat(32);

/** Parses `args` for a command accepting `flags` (init's help texts); its values or the error. */
async function probe(
  flags: readonly string[],
  args: string[],
): Promise<{ values?: FlagValues; error?: unknown }> {
  let values: FlagValues | undefined;
  const program = createProgram((p) => {
    addFlags(p.command("probe"), flags, "init").action((_o: unknown, c: Command) => {
      values = flagValues(c);
    });
  });
  try {
    await program.parseAsync(normaliseArgv(["probe", ...args]), { from: "user" });
    return { values };
  } catch (error) {
    return { error };
  }
}

async function values(flags: readonly string[], args: string[]): Promise<FlagValues> {
  const r = await probe(flags, args);
  assert.equal(r.error, undefined, String(r.error));
  return r.values!;
}

async function failure(flags: readonly string[], args: string[]): Promise<Error> {
  const r = await probe(flags, args);
  assert.ok(r.error instanceof Error, `${args.join(" ")} parsed`);
  return r.error;
}

Deno.test("--flag=value and --flag value; shorthands as -o json, -o=json, -ojson", async () => {
  assert.equal((await values(["config"], ["--config=a.yaml"])).config, "a.yaml");
  assert.equal((await values(["config"], ["--config", "a.yaml"])).config, "a.yaml");
  for (const args of [["-o", "json"], ["-o=json"], ["-ojson"], ["--output=json"]]) {
    assert.equal((await values(["output"], args)).output, "json", args.join(" "));
  }
  // Global flags, before or after the command.
  const g = await probe(["config"], ["--rootfs", "/r", "-v", "5"]);
  assert.equal(g.values?.rootfs, "/r");
  assert.equal(g.values?.v, 5);
});

Deno.test("string slices: repeated and comma-separated, in order", async () => {
  const v = await values(["ignore-preflight-errors"], [
    "--ignore-preflight-errors",
    "Swap,NumCPU",
    "--ignore-preflight-errors=Mem",
  ]);
  assert.deepEqual(v["ignore-preflight-errors"], ["Swap", "NumCPU", "Mem"]);
  const sans = await values(["apiserver-cert-extra-sans"], [
    "--apiserver-cert-extra-sans=a.example,10.0.0.1",
  ]);
  assert.deepEqual(sans["apiserver-cert-extra-sans"], ["a.example", "10.0.0.1"]);
});

Deno.test("booleans: --flag, --flag=true|false|1|0|t|f; another value names the flag", async () => {
  assert.equal((await values(["dry-run"], ["--dry-run"]))["dry-run"], true);
  for (
    const [text, want] of [["true", true], ["1", true], ["t", true], ["false", false]] as const
  ) {
    assert.equal((await values(["dry-run"], [`--dry-run=${text}`]))["dry-run"], want, text);
  }
  assert.equal((await values(["dry-run"], ["--dry-run=0"]))["dry-run"], false);
  const e = await failure(["dry-run"], ["--dry-run=maybe"]);
  assert.ok(e instanceof KubeadmError);
  assert.equal(e.field, "--dry-run");
  assert.equal(e.exitCode, 1);
  assert.equal(
    e.message,
    'invalid argument "maybe" for "--dry-run" flag: strconv.ParseBool: parsing "maybe": invalid syntax',
  );
  // -f=false for a boolean shorthand.
  assert.equal((await values(["force"], ["-f=false"])).force, false);
  assert.equal((await values(["force"], ["-f"])).force, true);
});

Deno.test("typed values: int32, int, duration, Level, moduleSpec and feature gates fail naming the flag", async () => {
  assert.equal(
    (await values(["apiserver-bind-port"], ["--apiserver-bind-port=7443"]))[
      "apiserver-bind-port"
    ],
    7443,
  );
  // pflag's int (upgrade diff's --context-lines) is 64-bit.
  assert.equal(
    (await values(["context-lines"], ["-c", "99999999999"]))["context-lines"],
    99999999999,
  );
  assert.equal((await values(["token-ttl"], ["--token-ttl", "2h30m"]))["token-ttl"], "2h30m");
  // --v and --vmodule are global: every command has them.
  assert.equal((await values(["config"], ["--vmodule=foo*=3,bar=1"])).vmodule, "foo*=3,bar=1");
  const cases: [string, string[], string][] = [
    [
      "apiserver-bind-port",
      ["--apiserver-bind-port", "abc"],
      'invalid argument "abc" for "--apiserver-bind-port" flag: strconv.ParseInt: parsing "abc": invalid syntax',
    ],
    [
      "apiserver-bind-port",
      ["--apiserver-bind-port=99999999999"],
      'invalid argument "99999999999" for "--apiserver-bind-port" flag: strconv.ParseInt: parsing "99999999999": value out of range',
    ],
    [
      "context-lines",
      ["--context-lines=9223372036854775808"],
      'invalid argument "9223372036854775808" for "-c, --context-lines" flag: strconv.ParseInt: parsing "9223372036854775808": value out of range',
    ],
    [
      "context-lines",
      ["-c", "many"],
      'invalid argument "many" for "-c, --context-lines" flag: strconv.ParseInt: parsing "many": invalid syntax',
    ],
    [
      "token-ttl",
      ["--token-ttl=forever"],
      'invalid argument "forever" for "--token-ttl" flag: time: invalid duration "forever"',
    ],
    [
      "config",
      ["-v", "high"],
      'invalid argument "high" for "-v, --v" flag: strconv.ParseInt: parsing "high": invalid syntax',
    ],
    [
      "config",
      ["--vmodule=foo"],
      'invalid argument "foo" for "--vmodule" flag: expect comma-separated list of filename=N',
    ],
  ];
  for (const [flag, args, message] of cases) {
    const e = await failure([flag], args);
    assert.ok(e instanceof KubeadmError, args.join(" "));
    assert.equal(e.message, message);
    assert.equal(e.exitCode, 1, "exit status 1, as upstream's flag parsing");
  }
  const gates = await failure(["feature-gates"], ["--feature-gates=Bogus=true"]);
  assert.ok(gates instanceof KubeadmError);
  assert.equal(gates.exitCode, 1);
  assert.equal(gates.field, "--feature-gates");
});

Deno.test("parse errors in pflag's and cobra's words, without the value of a mistyped flag", async () => {
  const cases: [string[], RegExp][] = [
    [[`--tokn=${SECRET_TOKEN}`], /^unknown flag: --tokn$/],
    [[`--certificate-kye=${SECRET_KEY}`], /^unknown flag: --certificate-kye$/],
    [["-x", SECRET_KEY], /^unknown shorthand flag: 'x' in -x$/],
    [["--config"], /^flag needs an argument: --config$/],
    [["surplus"], /^unknown command "surplus" for "kubeadm probe"$/],
  ];
  for (const [args, message] of cases) {
    const e = await failure(["config"], args);
    assert.ok(e instanceof UsageError, `${args.join(" ")}: ${e}`);
    assert.equal(e.exitCode, 1);
    assert.match(e.message, message);
    assert.ok(!e.message.includes(SECRET_TOKEN) && !e.message.includes(SECRET_KEY), e.message);
  }
});

/** Runs the real command line with a fresh, empty --rootfs; returns what it did. */
async function kubeadm(args: string[]) {
  const root = await Deno.makeTempDir({ prefix: "kubeadm-ts-flags-" });
  try {
    const r = await run([kubeadmLauncher(), ...args, "--rootfs", root]);
    const written: string[] = [];
    for await (const e of Deno.readDir(root)) written.push(e.name);
    return { ...r, written };
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

Deno.test("the real command line: a port that is no number, a mistyped secret flag", async () => {
  // Issue 9, finding 7: the flag is named, nothing is done.
  const port = await kubeadm(["init", "--apiserver-bind-port", "abc", "--dry-run"]);
  assert.equal(port.code, 1, port.stderr);
  assert.match(port.stderr, /invalid argument "abc" for "--apiserver-bind-port" flag/);
  assert.deepEqual(port.written, []);
  // Issue 9, finding 8: the value of a mistyped flag is never printed, on any command.
  for (
    const args of [
      ["init", `--tokn=${SECRET_TOKEN}`],
      ["join", "10.0.0.1:6443", "--tokn", SECRET_TOKEN],
      ["join", `--certificate-kye=${SECRET_KEY}`],
      ["init", "phase", "upload-certs", `--certificate-kee=${SECRET_KEY}`],
      ["token", "create", `--ttll=${SECRET_TOKEN}`],
    ]
  ) {
    const r = await kubeadm(args);
    assert.equal(r.code, 1, `${args.join(" ")}: ${r.stderr}`);
    assert.match(r.stderr, /unknown flag: --[a-z-]+\n/);
    const printed = r.stdout + r.stderr;
    assert.ok(!printed.includes(SECRET_TOKEN) && !printed.includes(SECRET_KEY), printed);
    assert.ok(!printed.includes("abcdef."), printed);
    assert.deepEqual(r.written, []);
  }
});

Deno.test("a phase takes exactly its own flags, and --config is never mixed", async () => {
  const config = await Deno.makeTempFile({ suffix: ".yaml" });
  await Deno.writeTextFile(
    config,
    "apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\n",
  );
  try {
    const foreign = await kubeadm([
      "init",
      "phase",
      "certs",
      "ca",
      "--certificate-key",
      SECRET_KEY,
    ]);
    assert.equal(foreign.code, 1);
    assert.match(foreign.stderr, /^error: unknown flag: --certificate-key$/m);
    const cases: [string, string][] = [
      [`init phase certs all --config ${config} --cert-dir /d`, "cert-dir"],
      [
        `init phase upload-certs --upload-certs --certificate-key ${SECRET_KEY} --config ${config}`,
        "certificate-key",
      ],
      [
        `init phase kubeconfig admin --config ${config} --apiserver-bind-port 7443`,
        "apiserver-bind-port",
      ],
      [
        `join phase control-plane-join mark-control-plane --config ${config} --control-plane`,
        "control-plane",
      ],
      [`reset --config ${config} --cri-socket unix:///x.sock`, "cri-socket"],
      [`init --config ${config} --vmodule x=1`, "vmodule"],
    ];
    for (const [line, mixed] of cases) {
      const r = await kubeadm(line.split(" "));
      assert.notEqual(r.code, 0, line);
      assert.match(r.stderr, new RegExp(`can not mix '--config' with arguments \\[${mixed}\\]`));
      assert.deepEqual(r.written, [], line);
    }
    // Flags upstream allows with --config.
    const allowed = await kubeadm(
      `init phase kubeconfig admin --config ${config} --kubeconfig-dir /elsewhere --dry-run -v 1`
        .split(" "),
    );
    assert.doesNotMatch(allowed.stderr, /can not mix/);
  } finally {
    await Deno.remove(config);
  }
});

Deno.test("--kubeconfig-dir: the kubeconfig phases write there (under --rootfs)", async () => {
  const root = await Deno.makeTempDir({ prefix: "kubeadm-ts-kubeconfig-dir-" });
  try {
    const certs = await run([kubeadmLauncher(), "init", "phase", "certs", "ca", "--rootfs", root]);
    assert.equal(certs.code, 0, certs.stderr);
    const r = await run([
      kubeadmLauncher(),
      "init",
      "phase",
      "kubeconfig",
      "admin",
      "--kubeconfig-dir",
      "/srv/kubeconfigs",
      "--apiserver-advertise-address",
      "10.0.0.5",
      "--rootfs",
      root,
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /\[kubeconfig\] Using kubeconfig folder "\/srv\/kubeconfigs"/);
    assert.match(await Deno.readTextFile(`${root}/srv/kubeconfigs/admin.conf`), /kind: Config/);
    await assert.rejects(
      () => Deno.stat(`${root}/etc/kubernetes/admin.conf`),
      Deno.errors.NotFound,
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("-o an unknown format or a template format without a template: upstream's printer errors, exit status 1, nothing written", async () => {
  const allowed =
    "go-template,go-template-file,json,jsonpath,jsonpath-as-json,jsonpath-file,kyaml,template,templatefile,text,yaml";
  const commands = [
    ["token", "list"],
    ["certs", "check-expiration"],
    ["config", "images", "list"],
    ["upgrade", "plan"],
  ];
  for (const command of commands) {
    for (
      const [output, message] of [
        [
          "xml",
          `unable to match a printer suitable for the output format "xml", allowed formats are: ${allowed}`,
        ],
        ["go-template", "template format specified but no template given"],
        ["jsonpath=", "template format specified but no template given"],
      ]
    ) {
      const r = await kubeadm([...command, "-o", output]);
      const label = `${command.join(" ")} -o ${output}`;
      assert.equal(r.code, 1, `${label}: ${r.stderr}`);
      assert.equal(
        r.stderr.split("\n")[0],
        `error: could not construct output printer: ${message}`,
        label,
      );
      assert.deepEqual(r.written, [], label);
    }
  }
});

Deno.test("-o go-template-file= of an endless file (/dev/zero) is refused past its cap, exit status 1", async () => {
  // No --rootfs: the host's /dev/zero.
  const r = await run([
    kubeadmLauncher(),
    "config",
    "images",
    "list",
    "--kubernetes-version",
    "v1.37.2",
    "-o",
    "go-template-file=/dev/zero",
  ]);
  assert.equal(r.code, 1, r.stderr);
  assert.equal(
    r.stderr.split("\n")[0],
    "error: could not construct output printer: error reading --template /dev/zero, read /dev/zero: file is larger than 4194304 bytes",
  );
  assert.equal(r.stdout, "");
});

Deno.test("files a flag names are read with a cap: --config, --kubeconfig and --cluster-info of /dev/zero fail naming the flag's file, nothing written", async () => {
  const cases: [string[], number, string][] = [
    [
      ["config", "validate", "--config", "/dev/zero"],
      3,
      'error: unable to read config from "/dev/zero"',
    ],
    [
      ["init", "--dry-run", "--config", "/dev/zero"],
      3,
      'error: unable to read config from "/dev/zero"',
    ],
    [
      ["token", "list", "--kubeconfig", "/dev/zero"],
      1,
      "error: failed to load admin kubeconfig: open /dev/zero: file is larger than 4194304 bytes",
    ],
    [
      ["upgrade", "plan", "--kubeconfig", "/dev/zero"],
      1,
      'error: couldn\'t create a Kubernetes client from file "/dev/zero": file is larger than 4194304 bytes',
    ],
    [
      ["discovery-check", "--cluster-info", "/dev/zero", "--token", SECRET_TOKEN],
      3,
      "error: unable to read /dev/zero",
    ],
  ];
  for (const [args, code, first] of cases) {
    const r = await run([kubeadmLauncher(), ...args]);
    assert.equal(r.code, code, `${args.join(" ")}: ${r.stderr}`);
    const lines = r.stderr.split("\n");
    assert.equal(lines[0], first, args.join(" "));
    assert.match(r.stderr, /file is larger than 4194304 bytes/, args.join(" "));
    assert.equal(r.stdout, "", args.join(" "));
  }
});
