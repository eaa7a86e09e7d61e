// What scripts/bundle builds: the library bundle without what plans never run, and the type
// declarations shipped with the bundles.
import assert from "node:assert/strict";
import { repoRoot } from "../support/repo.ts";
import { buildWeb, bundleModule } from "../support/web_build.ts";
import { IGNORE_HINT } from "../../core/preflight/runner.ts";

Deno.test("the library bundle leaves out the preflight checks, which plans never run", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await bundleModule("web/core_entry.ts", `${dir}/core.js`, { minify: true });
    await bundleModule("core/phases/init/workflow.ts", `${dir}/cli_init.js`, { minify: true });
    // The CLI's init workflow carries the checks (their text survives minifying); the library's
    // plans run the same phase tree without them.
    assert.ok((await Deno.readTextFile(`${dir}/cli_init.js`)).includes(IGNORE_HINT));
    const core = await Deno.readTextFile(`${dir}/core.js`);
    assert.ok(!core.includes(IGNORE_HINT), "kubeadm-core.js carries core/preflight/");
    assert.ok(core.includes("a plan has no machine to inspect"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** The names a declaration file exports (`export declare function x`, `export { a, b }`, ...). */
function declaredExports(dts: string): string[] {
  const names = new Set<string>();
  for (const m of dts.matchAll(/^export (?:declare )?(?:function|const|class|let|var) (\w+)/gm)) {
    names.add(m[1]);
  }
  for (const m of dts.matchAll(/^export \{([^}]*)\}/gm)) {
    for (const part of m[1].split(",")) {
      const name = part.trim().split(/\s+as\s+/).pop()!.replace(/^type\s+/, "");
      if (name) names.add(name);
    }
  }
  return [...names];
}

Deno.test("the bundles ship type declarations a strict TypeScript consumer compiles against", async () => {
  const build = await buildWeb({ types: true });
  try {
    for (const name of ["kubeadm-core", "kubeadm-verify"]) {
      const dts = await Deno.readTextFile(`${build.dir}/${name}.d.ts`);
      assert.doesNotMatch(dts, /from "(?:kubernetes-types|asn1js|yaml|@noble)/, "self-contained");
      // Every value the module exports at run time is declared.
      const runtime = Object.keys(await import(`${build.dir}/${name}.js`)).sort();
      const declared = new Set(declaredExports(dts));
      assert.deepEqual(runtime.filter((n) => !declared.has(n)), [], `${name}: undeclared values`);
    }
    // A consumer that uses the plan API the way the examples do, checked by tsc --strict.
    await Deno.writeTextFile(
      `${build.dir}/consumer.ts`,
      `import { planControlPlane, seededRandom, toCloudInit, type ControlPlanePlan } from "./kubeadm-core.js";
import { checkClusterInfo, type DiscoveryVerdict } from "./kubeadm-verify.js";
const plan: ControlPlanePlan = await planControlPlane({
  host: { hostname: "cp1", advertiseAddress: "192.0.2.10" },
  random: seededRandom("types"),
});
const text: string = toCloudInit(plan);
const modes: number[] = plan.files.map((f) => f.mode);
const verdict: DiscoveryVerdict = await checkClusterInfo({ clusterInfo: "", token: plan.token });
// @ts-expect-error: the host is required
await planControlPlane({});
export { modes, text, verdict };
`,
    );
    const tsc = await new Deno.Command(`${repoRoot}/scripts/npm-tool`, {
      args: [
        "tsc",
        "--strict",
        "--noEmit",
        "--target",
        "es2022",
        "--module",
        "esnext",
        "--moduleResolution",
        "bundler",
        "--lib",
        "es2023,dom",
        "consumer.ts",
      ],
      cwd: build.dir,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.ok(
      tsc.success,
      new TextDecoder().decode(tsc.stdout) + new TextDecoder().decode(tsc.stderr),
    );
  } finally {
    await build.cleanup();
  }
});
