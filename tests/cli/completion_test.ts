// `kubeadm completion bash|zsh`: the scripts the real command line prints, sourced into a real
// bash (and zsh, through its bashcompinit) and asked for completions of commands, phases,
// aliases and flags.
import assert from "node:assert/strict";
import { kubeadmLauncher, run } from "../support/commands.ts";

async function script(shell: string): Promise<string> {
  const r = await run([kubeadmLauncher(), "completion", shell]);
  assert.equal(r.code, 0, r.stderr);
  const path = await Deno.makeTempFile({ prefix: `kubeadm-completion-`, suffix: `.${shell}` });
  await Deno.writeTextFile(path, r.stdout);
  return path;
}

/** The completions for each command line (its last word being completed), in one shell. */
async function complete(
  shell: "bash" | "zsh",
  path: string,
  lines: readonly string[][],
): Promise<string[][]> {
  const setup = shell === "bash"
    ? `source '${path}'`
    : `autoload -U compinit && compinit -u -D; source '${path}'; setopt ksharrays`;
  const asks = lines.map((words) =>
    `COMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${words.length - 1}; ` +
    `_kubeadm; printf '%s\\n' "\${COMPREPLY[@]}"; echo '--'`
  );
  const code = [setup, ...asks].join("\n");
  const r = await run(
    shell === "bash" ? ["bash", "--norc", "-c", code] : ["zsh", "-f", "-c", code],
  );
  assert.equal(r.code, 0, r.stderr);
  const answers = r.stdout.split("--\n").slice(0, lines.length);
  return answers.map((a, i) => {
    // zsh's compgen emulation returns every candidate; zsh itself keeps those that match.
    const current = lines[i][lines[i].length - 1];
    return a.split("\n").filter((l) => l !== "" && l.startsWith(current)).sort();
  });
}

/** Command lines and what completing their last word must (`has`) or must exactly give. */
const CASES: { words: string[]; is?: string[]; has?: string[] }[] = [
  { words: ["kubeadm", ""], has: ["init", "join", "reset", "token", "config", "completion"] },
  { words: ["kubeadm", "in"], is: ["init"] },
  { words: ["kubeadm", "init", "ph"], is: ["phase"] },
  // Phases and their aliases, after global flags and their values.
  {
    words: ["kubeadm", "--rootfs", "/x", "init", "phase", ""],
    has: ["preflight", "certs", "upload-config", "uploadconfig", "bootstraptoken"],
  },
  {
    words: ["kubeadm", "init", "phase", "certs", "apiserver-"],
    is: ["apiserver-etcd-client", "apiserver-kubelet-client"],
  },
  // Exactly the phase's flags, global ones included; an alias leads to its command's flags.
  { words: ["kubeadm", "init", "phase", "certs", "ca", "--c"], is: ["--cert-dir", "--config"] },
  { words: ["kubeadm", "init", "phase", "bootstraptoken", "--k"], is: ["--kubeconfig"] },
  { words: ["kubeadm", "init", "--config", "f.yaml", "--skip-t"], is: ["--skip-token-print"] },
  { words: ["kubeadm", "config", "images", "list", "--ou"], is: ["--output"] },
  { words: ["kubeadm", "reset", "phase", "cleanupnode", "--cl"], is: ["--cleanup-tmp-dir"] },
  { words: ["kubeadm", "--v"], is: ["--v", "--vmodule"] },
];

async function checkCompletions(shell: "bash" | "zsh"): Promise<void> {
  const path = await script(shell);
  try {
    const answers = await complete(shell, path, CASES.map((c) => c.words));
    CASES.forEach((c, i) => {
      const what = `${shell}: ${c.words.join(" ")}`;
      if (c.is) assert.deepEqual(answers[i], [...c.is].sort(), what);
      for (const w of c.has ?? []) assert.ok(answers[i].includes(w), `${what}: ${w} missing`);
    });
  } finally {
    await Deno.remove(path);
  }
}

Deno.test("bash completion: commands, phases, aliases and flags", async () => {
  await checkCompletions("bash");
});

Deno.test("zsh completion: the same, through zsh's bashcompinit", async () => {
  await checkCompletions("zsh");
});

Deno.test("completion needs exactly one supported shell", async () => {
  for (
    const [args, message] of [
      [[], /^error: shell not specified$/m],
      [["bash", "zsh"], /^error: too many arguments. expected only the shell type$/m],
      [["fish"], /unsupported shell type "fish", the supported shell types are \[bash zsh\]/],
    ] as const
  ) {
    const r = await run([kubeadmLauncher(), "completion", ...args]);
    assert.equal(r.code, 1, args.join(" "));
    assert.match(r.stderr, message);
    assert.equal(r.stdout, "");
  }
});
