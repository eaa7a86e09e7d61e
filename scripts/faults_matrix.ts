/**
 * Renders the fault matrix's report (the JSON lines `scripts/test --faults` collects, one per
 * cell: tests/support/faults.ts) as README's table: operation × fault → outcome, with the date,
 * the commit and the counts.
 *
 * Usage: scripts/deno run --allow-read --allow-run=git scripts/faults_matrix.ts <report.jsonl>
 *
 * @module
 */
import type { CellOutcome } from "../tests/support/faults.ts";

const file = Deno.args[0];
if (!file) throw new Error("usage: faults_matrix.ts <report.jsonl>");
const cells = (await Deno.readTextFile(file)).split("\n").filter(Boolean)
  .map((l) => JSON.parse(l) as CellOutcome);
const git = await new Deno.Command("git", { args: ["rev-parse", "--short", "HEAD"] }).output();
const commit = new TextDecoder().decode(git.stdout).trim() || "(unknown)";
const kind = (o: string) =>
  o.startsWith("converged") || o.startsWith("completed")
    ? "converged"
    : o.startsWith("refused") || /refused/.test(o.split(";")[0])
    ? "refused, said what to do, then converged"
    : "failed clean, then converged";
const counts = new Map<string, number>();
for (const c of cells) counts.set(kind(c.outcome), (counts.get(kind(c.outcome)) ?? 0) + 1);
const esc = (s: string) => s.replaceAll("|", "\\|");
console.log(
  [
    `Latest run: ${
      new Date().toISOString().slice(0, 10)
    }, commit ${commit}: ${cells.length} cells — ${
      [...counts].map(([k, n]) => `${n} ${k}`).join(", ")
    }.`,
    "",
    "| Operation | Fault | Outcome | s |",
    "| --- | --- | --- | --: |",
    ...cells.map((c) =>
      `| ${esc(c.operation)} | ${esc(c.fault)}${c.ci ? " (CI)" : ""} | ${
        esc(c.outcome)
      } | ${c.seconds} |`
    ),
  ].join("\n"),
);
