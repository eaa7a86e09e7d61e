// A command run without commander (cli/direct.ts) gets exactly the values commander would give
// it, and leaves every other command line (help, unknown or boolean flags, arguments, missing
// values) to commander; through the real command line, `version` prints the same either way.
import assert from "node:assert/strict";
import type { Command } from "commander";
import { createProgram } from "../../cli/program.ts";
import { addFlags, type FlagValues, flagValues, normaliseArgv } from "../../cli/flags.ts";
import { directValues } from "../../cli/direct.ts";
import { VERSION_FLAGS } from "../../cli/commands/version.ts";
import { kubeadmLauncher, run } from "../support/control_plane.ts";

/** What commander gives `version`'s action for `args`, or the error it throws. */
async function viaCommander(args: string[]): Promise<FlagValues | Error> {
  let values: FlagValues | undefined;
  const program = createProgram((p) => {
    addFlags(p.command("version"), VERSION_FLAGS, "version").action((_o: unknown, c: Command) => {
      values = flagValues(c);
    });
  });
  try {
    await program.parseAsync(normaliseArgv(["version", ...args]), { from: "user" });
    return values!;
  } catch (e) {
    return e as Error;
  }
}

/** directValues' result, or the error it throws. */
function viaDirect(args: string[]): FlagValues | Error | undefined {
  try {
    return directValues("version", VERSION_FLAGS, args);
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
    const direct = viaDirect(args);
    assert.ok(direct !== undefined, `${args.join(" ")}: run directly`);
    const commander = await viaCommander(args);
    if (commander instanceof Error) {
      assert.ok(direct instanceof Error, `${args.join(" ")}: commander fails, direct did not`);
      assert.equal(direct.message, commander.message, args.join(" "));
    } else {
      assert.deepEqual(direct, commander, args.join(" "));
    }
  }
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
      ["--unknown=1"],
      ["--", "x"],
      ["-ojson"],
    ]
  ) {
    assert.equal(viaDirect(args), undefined, args.join(" "));
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
