/**
 * The two steps `scripts/install` runs on the CLI's chunks (`deno bundle --code-splitting`):
 *
 * - `prepare DIR`: the shared runtime chunk imports `node:module` to give the CommonJS package
 *   (commander) its `require`; a static import of a Node built-in starts Deno's
 *   Node compatibility layer at start-up (measured on `kubeadm version`: +14 MB). It becomes a
 *   `require` that asks `process.getBuiltinModule` for the built-in when a package first needs
 *   it. Then the checks: no chunk imports a module fetched at run time (`npm:`, `jsr:`,
 *   `http(s):`), and what `main.js` imports statically (what every command loads) is chunks only.
 * - `warm DIR`: imports every chunk but `main.js` once (a chunk's top level only defines what it
 *   exports, or loads a CommonJS package), so that Deno's code cache holds them compiled with
 *   the V8 flags the launcher gives (run by the installed Deno with those flags).
 *
 * Usage: deno run --allow-read=DIR --allow-write=DIR scripts/install_bundle.ts prepare DIR
 *        deno run --allow-read=DIR --allow-env scripts/install_bundle.ts warm DIR
 *
 * @module
 */
const [step, dir] = Deno.args;
const chunks = [...Deno.readDirSync(dir)].map((e) => e.name).filter((n) => n.endsWith(".js"));

const EAGER_REQUIRE =
  'import { createRequire as __deno_internal_createRequire } from "node:module";\n' +
  "var __require = __deno_internal_createRequire(import.meta.url);";
const LAZY_REQUIRE = "var __require = (id) => globalThis.process.getBuiltinModule(id);";

/** The specifiers a chunk imports statically (`import … from "x"`, `import "x"`). */
function staticImports(text: string): string[] {
  return [
    ...text.matchAll(/^(?:import|export)\b[^;]*?from\s*"([^"]+)";?$|^import\s*"([^"]+)";?$/gms),
  ]
    .map((m) => m[1] ?? m[2]);
}

if (step === "prepare") {
  let patched = 0;
  for (const name of chunks) {
    const path = `${dir}/${name}`;
    let text = Deno.readTextFileSync(path);
    if (text.includes(EAGER_REQUIRE)) {
      text = text.replace(EAGER_REQUIRE, LAZY_REQUIRE);
      Deno.writeTextFileSync(path, text);
      patched++;
    }
    const remote = text.match(/(?:from\s*|import\s*\(\s*)"((?:npm|jsr|https?):[^"]*)"/);
    if (remote) throw new Error(`${name} imports ${remote[1]} at run time`);
  }
  if (patched !== 1) throw new Error(`expected one chunk with the eager require, found ${patched}`);
  const seen = new Set<string>();
  const walk = (name: string) => {
    if (seen.has(name)) return;
    seen.add(name);
    for (const spec of staticImports(Deno.readTextFileSync(`${dir}/${name}`))) {
      if (!spec.startsWith("./")) throw new Error(`${name} imports ${spec} at start-up`);
      walk(spec.slice(2));
    }
  };
  walk("main.js");
} else if (step === "warm") {
  for (const name of chunks) {
    if (name !== "main.js") await import(new URL(`file://${dir}/${name}`).href);
  }
} else {
  throw new Error(`unknown step ${step} (prepare, warm)`);
}
