// Opening node files that must be regular files: others are refused by name, never opened
// (a FIFO would block the open until a writer came).
import assert from "node:assert/strict";
import {
  NotRegularFileError,
  openRegularFileSync,
} from "../../../../adapters/deno/fs/regular_file.ts";

Deno.test("openRegularFileSync opens regular files and refuses the rest by name", async () => {
  const dir = await Deno.makeTempDir({ prefix: "kubeadm-ts-regular-" });
  try {
    await Deno.writeTextFile(`${dir}/ca.crt`, "pem");
    await Deno.symlink(`${dir}/ca.crt`, `${dir}/link.crt`);
    assert.equal(
      (await new Deno.Command("mkfifo", { args: [`${dir}/fifo.crt`] }).output()).code,
      0,
    );
    await Deno.mkdir(`${dir}/dir.crt`);
    {
      using f = openRegularFileSync(`${dir}/ca.crt`);
      assert.equal(f.statSync().size, 3);
    }
    {
      using f = openRegularFileSync(`${dir}/link.crt`, true);
      assert.equal(f.statSync().size, 3);
    }
    const refused: [string, string][] = [
      ["fifo.crt", "a FIFO"],
      ["dir.crt", "a directory"],
      ["link.crt", "a symbolic link"],
    ];
    for (const [name, kind] of refused) {
      assert.throws(
        () => openRegularFileSync(`${dir}/${name}`),
        (e: unknown) =>
          e instanceof NotRegularFileError &&
          e.message === `${dir}/${name} is ${kind}, not a regular file`,
      );
    }
    assert.throws(() => openRegularFileSync("/dev/null", true), /is a character device/);
    assert.throws(() => openRegularFileSync(`${dir}/missing`), Deno.errors.NotFound);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
