// Differential test of the template output printers (`-o go-template=…`, `-o jsonpath=…` and
// their file variants) against upstream kubeadm v1.37.2: `config images list` over a corpus of
// templates and expressions (numbers, maps, ranges, functions, missing keys, parse and
// execution errors, unknown formats), and `certs check-expiration` on a PKI upstream generated,
// with template files read inside `--rootfs`. Stdout must be byte-identical, the exit status
// the same, and stderr (upstream's error and hint lines) the same.
import assert from "node:assert/strict";
import { k8sBinDir } from "../support/k8s_bins.ts";
import { run, type RunResult } from "../support/commands.ts";
import { repoRoot } from "../support/repo.ts";

const test = (name: string, fn: () => Promise<void>) =>
  Deno.test({ name, sanitizeOps: false, sanitizeResources: false, fn });

async function upstream(args: string[]): Promise<RunResult> {
  return run([`${await k8sBinDir()}/kubeadm`, ...args]);
}

function ours(args: string[]): Promise<RunResult> {
  return run([`${repoRoot}/scripts/kubeadm`, ...args]);
}

interface Case {
  /** `-o`'s value. */
  output: string;
  /** `--allow-missing-template-keys=false`. */
  strict?: boolean;
}

/** Templates and expressions over the `Images` object, each a line of behaviour to match. */
const IMAGES_CORPUS: Case[] = [
  // Go templates: fields, the object, lists and maps as Go prints them.
  { output: 'go-template={{.kind}} {{.apiVersion}}{{"\\n"}}' },
  { output: "go-template={{.}}" },
  { output: "template={{.images}}" },
  { output: 'go-template={{range $i, $e := .images}}{{$i}}: {{$e}}{{"\\n"}}{{end}}' },
  { output: "go-template={{range $k, $v := .}}{{$k}}={{len $v}};{{end}}" },
  { output: "go-template={{- range .images -}}\n  {{ . }} {{- end }}|{{/* a comment */}}" },
  { output: "go-template={{index .images 2}} {{slice .images 5}} {{len .kind}}" },
  {
    output:
      'go-template={{range .images}}{{if eq . "registry.k8s.io/pause:3.10.2"}}{{break}}{{end}}{{.}},{{else}}none{{end}}',
  },
  {
    output:
      "go-template={{range .images}}{{if not (le (len .) 30)}}{{continue}}{{end}}{{.}} {{end}}",
  },
  {
    output:
      "go-template={{with .nope}}x{{else with .kind}}{{.}}{{end}} {{if and .kind (not .nope)}}y{{else if .images}}z{{end}}",
  },
  { output: "go-template={{$n := len .images}}{{$n = 3}}{{$n}} {{or .nope .kind}}" },
  // Numbers: Go's int and float64, fmt's verbs and %v of floats.
  {
    output:
      'go-template={{1000000.0}} {{1e21}} {{0.000001}} {{123456.0}} {{-0.5}} {{0x1F}} {{1_000}} {{\'a\'}} {{printf "%v %.2f %e %g %08.3f %x %q %T %T" 1.5 2.345 1234.5 0.00001 -3.14159 255 "q\\"" 7 7.0}}',
  },
  {
    output:
      'go-template={{printf "%5d|%-5d|%+d|%05d|%o|%b|%X|%c|%U|%t|%8.3s|%-8s|%%" 42 42 42 -42 8 5 255 65 9731 true "abcdef" "ab"}}',
  },
  { output: 'go-template={{printf "%d %s" "x" 1.5}} {{printf "%d"}} {{printf "%d" 1 2}}' },
  { output: 'go-template={{print 1 2 "a" 3.5 nil}} {{println .kind 2}}' },
  { output: 'go-template={{lt 1 2}} {{ge 2.5 2.5}} {{ne .kind "x"}} {{eq 3 1 2 3}}' },
  { output: "go-template={{range 3}}{{.}}{{end}} {{range $i := 2}}{{$i}}{{end}}" },
  // cli-runtime's functions and Go's escapers.
  {
    output:
      'go-template={{exists . "images" 6}} {{exists . "images" 7}} {{exists . "kind"}} {{base64decode "a3ViZWFkbQ=="}}',
  },
  {
    output:
      'go-template={{html "<a href=\'x\'>&</a>"}} {{js "it\'s <b>"}} {{urlquery "a b&c=d/é"}}',
  },
  {
    output:
      'go-template={{define "img"}}[{{.}}]{{end}}{{range .images}}{{template "img" .}}{{end}}',
  },
  { output: 'go-template={{block "t" .kind}}<{{.}}>{{end}}' },
  // Missing keys: <no value> by default, an error (with upstream's debugging text) if strict.
  { output: "go-template={{.nope}} {{.nope.deeper}} {{print .nope}}" },
  { output: "go-template=before {{.nope}} after", strict: true },
  // Execution and parse errors.
  { output: "go-template=a{{index .images 10}}b" },
  { output: "go-template={{.kind.field}}" },
  { output: "go-template={{eq 1 1.0}}" },
  { output: "go-template={{len .nope}}" },
  { output: 'go-template={{base64decode "!!"}}' },
  { output: "go-template={{.kind" },
  { output: "go-template={{range .images}}" },
  { output: "go-template={{nofunc .kind}}" },
  { output: "go-template={{$x}}" },
  { output: "go-template={{end}}" },
  // JSONPath.
  { output: 'jsonpath={.kind}{"\\t"}{.images[0]}{"\\n"}' },
  { output: "jsonpath={.images}" },
  { output: "jsonpath={@}" },
  { output: "jsonpath={.images[-2:]} {.images[0:4:2]} {.images[1,3]}" },
  { output: 'jsonpath={range .images[*]}{@}{"\\n"}{end}' },
  { output: 'jsonpath={.images[?(@=="registry.k8s.io/etcd:3.7.0-0")]}' },
  { output: "jsonpath={..kind} {['apiVersion']}" },
  { output: "jsonpath={.nope}|{.kind}" },
  { output: "jsonpath={.nope}", strict: true },
  { output: "jsonpath={true} {42} {1.5}" },
  { output: "jsonpath={.images[7]}" },
  { output: "jsonpath={.images[?(@==1)]}" },
  { output: "jsonpath={.kind" },
  { output: "jsonpath={.images[x]}" },
  { output: "jsonpath={end}" },
  { output: "jsonpath-as-json={.images[0:2]}" },
  { output: "jsonpath-as-json={.kind}{.nope}" },
  // Format errors.
  { output: "go-template" },
  { output: "jsonpath=" },
  { output: "go-template-file=" },
  { output: "templatefile=/nonexistent/template" },
  { output: "jsonpath-file=/" },
  { output: "Go-Template={{.kind}}" },
  { output: "xml" },
  { output: "JSON" },
];

test("config images list -o <template format> matches upstream kubeadm v1.37.2", async () => {
  assert.ok(IMAGES_CORPUS.length >= 30);
  const failures: string[] = [];
  for (const c of IMAGES_CORPUS) {
    const args = ["config", "images", "list", "--kubernetes-version", "v1.37.2", "-o", c.output];
    if (c.strict) args.push("--allow-missing-template-keys=false");
    const [u, o] = await Promise.all([upstream(args), ours(args)]);
    const diffs = [
      u.code !== o.code ? `exit ${o.code}, upstream ${u.code}` : "",
      u.stdout !== o.stdout
        ? `stdout ${JSON.stringify(o.stdout)}, upstream ${JSON.stringify(u.stdout)}`
        : "",
      u.stderr !== o.stderr
        ? `stderr ${JSON.stringify(o.stderr)}, upstream ${JSON.stringify(u.stderr)}`
        : "",
    ].filter((d) => d);
    if (diffs.length > 0) {
      failures.push(`-o ${c.output}${c.strict ? " (strict)" : ""}:\n  ${diffs.join("\n  ")}`);
    }
  }
  assert.deepEqual(failures, []);
  // The corpus exercises both outcomes.
  const codes = await Promise.all(
    ["go-template={{.kind}}", "go-template={{.kind"].map((o) =>
      ours(["config", "images", "list", "--kubernetes-version", "v1.37.2", "-o", o])
    ),
  );
  assert.deepEqual(codes.map((r) => r.code), [0, 1]);
});

/** A node's PKI and kubeconfigs made by upstream (admin.conf pointing nowhere), and a template. */
async function pkiRoot(): Promise<string> {
  const root = await Deno.makeTempDir({ prefix: "kts-golden-templates-" });
  await Deno.writeTextFile(
    `${root}/cfg.yaml`,
    "apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\nkubernetesVersion: v1.37.2\n",
  );
  for (const phase of [["certs", "all"], ["kubeconfig", "all"]]) {
    const r = await upstream([
      "init",
      "phase",
      ...phase,
      "--config",
      "/cfg.yaml",
      "--rootfs",
      root,
    ]);
    assert.equal(r.code, 0, r.stderr);
  }
  const admin = `${root}/etc/kubernetes/admin.conf`;
  const text = await Deno.readTextFile(admin);
  await Deno.writeTextFile(admin, text.replace(/server: \S+/, "server: https://127.0.0.1:1"));
  await Deno.writeTextFile(
    `${root}/names.tmpl`,
    '{{range .certificates}}{{.name}}:{{.caName}}{{"\\n"}}{{end}}',
  );
  await Deno.writeTextFile(
    `${root}/authorities.jsonpath`,
    '{range .certificateAuthorities[*]}{.name}{" "}{end}',
  );
  return root;
}

/**
 * `residualTime` moves with the clock between the two runs: each run of digits is masked (a
 * float's shortest form has fewer digits when the value ends in zeros: 3.1535999e+08).
 */
const maskDigits = (s: string) => s.replace(/\d+/g, "#");

const EXPIRATION_CASES: (Case & { mask?: boolean })[] = [
  {
    output:
      'go-template={{range .certificates}}{{.name}} {{.caName}} {{.missing}} {{.externallyManaged}} {{.expirationDate}}{{"\\n"}}{{end}}',
  },
  {
    output:
      'go-template={{range .certificateAuthorities}}{{printf "%T %v %s" .residualTime (gt .residualTime 86400) .name}}{{"\\n"}}{{end}}',
  },
  { output: "jsonpath={.certificates[*].residualTime}", mask: true },
  { output: "go-template={{(index .certificates 0).residualTime}}", mask: true },
  { output: 'jsonpath={range .certificates[?(@.caName=="etcd-ca")]}{.name}{"\\n"}{end}' },
  { output: "jsonpath-as-json={.certificateAuthorities[0]}", mask: true },
  { output: "go-template={{.certificates.name}}", strict: true, mask: true },
  { output: "jsonpath={.certificates[0].nope}", strict: true, mask: true },
  // Template files: read inside --rootfs, as upstream (chrooted) reads them.
  { output: "go-template-file=/names.tmpl" },
  { output: "templatefile=names.tmpl" },
  { output: "jsonpath-file=/authorities.jsonpath" },
  { output: "go-template-file=/missing.tmpl" },
];

test("certs check-expiration -o <template format> matches upstream kubeadm v1.37.2", async () => {
  const root = await pkiRoot();
  try {
    const failures: string[] = [];
    for (const c of EXPIRATION_CASES) {
      const args = ["certs", "check-expiration", "--rootfs", root, "-o", c.output];
      if (c.strict) args.push("--allow-missing-template-keys=false");
      const u = await upstream(args);
      const o = await ours(args);
      const view = (s: string) => (c.mask ? maskDigits(s) : s);
      const diffs = [
        u.code !== o.code ? `exit ${o.code}, upstream ${u.code}` : "",
        view(u.stdout) !== view(o.stdout)
          ? `stdout ${JSON.stringify(o.stdout)}, upstream ${JSON.stringify(u.stdout)}`
          : "",
        view(u.stderr) !== view(o.stderr)
          ? `stderr ${JSON.stringify(o.stderr)}, upstream ${JSON.stringify(u.stderr)}`
          : "",
      ].filter((d) => d);
      if (diffs.length > 0) failures.push(`-o ${c.output}:\n  ${diffs.join("\n  ")}`);
      if (!c.strict && !c.output.includes("missing")) assert.equal(o.code, 0, o.stderr);
    }
    assert.deepEqual(failures, []);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
