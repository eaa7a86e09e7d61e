// The command line's phase outlines (cli/phase_outlines.ts) match the workflows they were
// generated from (scripts/phase_outlines.ts), and each loads the phase it stands for.
import assert from "node:assert/strict";
import type { Phase, Workflow } from "../../core/workflow/phase.ts";
import * as outlines from "../../cli/phase_outlines.ts";
import { outlineSources, phaseOutline } from "../../scripts/phase_outlines.ts";

const REGENERATE = "regenerate with scripts/phase_outlines.ts";

Deno.test("every workflow's outline is its phases without their work, in order", () => {
  for (const source of outlineSources()) {
    const outline = (outlines as Record<string, Workflow<never>>)[source.constant];
    assert.ok(outline, `${source.constant}: missing, ${REGENERATE}`);
    assert.equal(outline.name, source.workflow.name);
    const withoutLoad = outline.phases.map(({ load: _, ...rest }) => rest);
    assert.deepEqual(
      withoutLoad,
      source.workflow.phases.map((p: Phase<never>) => phaseOutline(p)),
      `${source.constant}: ${REGENERATE}`,
    );
  }
});

Deno.test("an outline's phase loads the very phase its workflow lists", async () => {
  for (const source of outlineSources()) {
    const outline = (outlines as Record<string, Workflow<never>>)[source.constant];
    for (const [i, phase] of outline.phases.entries()) {
      assert.ok(phase.load, `${source.constant}/${phase.name}: no loader`);
      assert.equal(
        await phase.load(),
        source.workflow.phases[i],
        `${source.constant}/${phase.name}`,
      );
    }
  }
});

Deno.test("outlines carry no work: a phase runs only once loaded", () => {
  const work = (phases: readonly Phase<never>[]): string[] =>
    phases.flatMap((p) => [
      ...(p.run || p.runIf ? [p.name] : []),
      ...work(p.phases ?? []),
    ]);
  for (const source of outlineSources()) {
    const outline = (outlines as Record<string, Workflow<never>>)[source.constant];
    assert.deepEqual(work(outline.phases), [], source.constant);
  }
});
