/**
 * Generates `cli/phase_outlines.ts`: every workflow's phases as the command line needs them
 * before one runs (names, aliases, help, the inputs each command takes, sub-phases), each
 * top-level phase with a loader of the module that declares it.
 *
 * A phase is declared once, whole, in its module (`core/phases/<workflow>/`), and each
 * workflow lists its phases (`workflow.ts`): the list a plan runs, its modules imported up
 * front. Importing that list would load every phase's work (the PKI, manifests, addons, the
 * cluster client), so the command line builds its commands, help and `--skip-phases` from
 * these outlines and loads a phase's module only when it runs (`core/workflow/runner.ts`,
 * `loadPhases`). `tests/scripts/phase_outlines_test.ts` fails when the outlines differ from
 * the workflows; rerun this then.
 *
 * Usage: scripts/deno run --allow-read --allow-write=cli --allow-run scripts/phase_outlines.ts
 *
 * @module
 */
import type { Phase, Workflow } from "../core/workflow/phase.ts";
import { initWorkflow } from "../core/phases/init/workflow.ts";
import { joinWorkflow } from "../core/phases/join/workflow.ts";
import { resetWorkflow } from "../core/phases/reset/workflow.ts";
import { upgradeApplyWorkflow, upgradeNodeWorkflow } from "../core/phases/upgrade/workflow.ts";

/** A workflow the outlines cover: its constant's name, its data type and its folder. */
export interface OutlineSource {
  constant: string;
  data: string;
  folder: string;
  workflow: Workflow<never>;
}

/** The workflows of the command line. */
export function outlineSources(): OutlineSource[] {
  return [
    { constant: "INIT_OUTLINE", data: "InitData", folder: "init", workflow: initWorkflow() },
    { constant: "JOIN_OUTLINE", data: "JoinData", folder: "join", workflow: joinWorkflow() },
    { constant: "RESET_OUTLINE", data: "ResetData", folder: "reset", workflow: resetWorkflow() },
    {
      constant: "UPGRADE_APPLY_OUTLINE",
      data: "UpgradeData",
      folder: "upgrade",
      workflow: upgradeApplyWorkflow(),
    },
    {
      constant: "UPGRADE_NODE_OUTLINE",
      data: "UpgradeData",
      folder: "upgrade",
      workflow: upgradeNodeWorkflow(),
    },
  ];
}

/** The fields of a phase an outline keeps, in the order it writes them. */
const OUTLINE_FIELDS = [
  "name",
  "aliases",
  "short",
  "long",
  "hidden",
  "runAllSiblings",
  "argsUsage",
  "inputs",
] as const;

/** A phase without its work: what the command line knows of it before it runs. */
export function phaseOutline(phase: Phase<never>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of OUTLINE_FIELDS) {
    if (phase[field] !== undefined) out[field] = phase[field];
  }
  if (phase.phases) out.phases = phase.phases.map(phaseOutline);
  return out;
}

/** Where a phase is declared: the module of `folder` exporting it, and the export's name. */
async function declaringExport(
  folder: string,
  phase: Phase<never>,
): Promise<{ file: string; name: string }> {
  const dir = new URL(`../core/phases/${folder}/`, import.meta.url);
  const found: { file: string; name: string }[] = [];
  for (const entry of [...Deno.readDirSync(dir)].sort((a, b) => a.name.localeCompare(b.name))) {
    if (!entry.isFile || !entry.name.endsWith(".ts")) continue;
    const module = await import(new URL(entry.name, dir).href);
    for (const [name, value] of Object.entries(module)) {
      if (value === phase) found.push({ file: entry.name, name });
    }
  }
  if (found.length !== 1) {
    throw new Error(
      `phase ${phase.name} of core/phases/${folder}/ must be exported by exactly one module (found ${
        found.map((f) => `${f.file}:${f.name}`).join(", ") || "none"
      })`,
    );
  }
  return found[0];
}

/** The text of `cli/phase_outlines.ts` (before `deno fmt`). */
export async function outlinesText(): Promise<string> {
  const sources = outlineSources();
  const types = [...new Set(sources.map((s) => `${s.data}:${s.folder}`))].map((t) => {
    const [data, folder] = t.split(":");
    return `import type { ${data} } from "../core/phases/${folder}/data.ts";`;
  });
  const blocks: string[] = [];
  for (const s of sources) {
    const phases: string[] = [];
    for (const phase of s.workflow.phases as Phase<never>[]) {
      const { file, name } = await declaringExport(s.folder, phase);
      const outline = JSON.stringify(phaseOutline(phase), null, 2)
        .replace(/^(\s*)"(\w+)":/gm, "$1$2:")
        .replace(/\n}$/, "");
      phases.push(
        `${outline},\n  load: () => import("../core/phases/${s.folder}/${file}").then((m) => m.${name}),\n}`,
      );
    }
    blocks.push(
      `/** The \`${s.workflow.name}\` workflow (\`core/phases/${s.folder}/workflow.ts\`). */\n` +
        `export const ${s.constant}: Workflow<${s.data}> = {\n  name: ${
          JSON.stringify(s.workflow.name)
        },\n  phases: [\n${phases.join(",\n")}\n],\n};\n`,
    );
  }
  return `/**
 * The workflows' phases as the command line lists, validates and offers them before one runs:
 * each top-level phase's outline (its declaration without its work) and a loader of the module
 * declaring it, which the runner calls when the phase runs.
 *
 * Generated by \`scripts/phase_outlines.ts\` from the workflows of \`core/phases/\`; do not edit
 * (\`tests/scripts/phase_outlines_test.ts\` checks it).
 *
 * @module
 */
import type { Workflow } from "../core/workflow/phase.ts";
${types.join("\n")}

${blocks.join("\n")}`;
}

if (import.meta.main) {
  const path = new URL("../cli/phase_outlines.ts", import.meta.url);
  Deno.writeTextFileSync(path, await outlinesText());
  const fmt = await new Deno.Command(Deno.execPath(), { args: ["fmt", "--quiet", path.pathname] })
    .output();
  if (!fmt.success) throw new Error(new TextDecoder().decode(fmt.stderr));
  console.log(`wrote ${path.pathname}`);
}
