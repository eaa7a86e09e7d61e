/**
 * Test steps that print their error the moment they fail. Deno prints a failed step's error only
 * when the whole test ends: a long real-node test stopped before its end (a deadline, a human)
 * would otherwise leave its failures unexplained.
 *
 * @module
 */

/** The part of a test context that runs steps. */
export interface Steps {
  step(name: string, fn: () => Promise<void>): Promise<boolean>;
}

/** Wraps `t` so that a failing step prints its name and error to stderr as it fails. */
export function loudSteps(t: Deno.TestContext): Steps {
  return {
    step: (name, fn) =>
      t.step(name, async () => {
        try {
          await fn();
        } catch (e) {
          console.error(`\n--- step failed: ${name}\n${e instanceof Error ? e.stack : e}\n`);
          throw e;
        }
      }),
  };
}
