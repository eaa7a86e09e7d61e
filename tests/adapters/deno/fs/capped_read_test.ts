import assert from "node:assert/strict";
import {
  FileTooLargeError,
  readFileCapped,
  readOpenFileCappedSync,
  readTextFileCapped,
} from "../../../../adapters/deno/fs/capped_read.ts";

/** The synchronous reader over a file it opens and closes. */
function readSync(path: string, cap: number): Uint8Array {
  using file = Deno.openSync(path);
  return readOpenFileCappedSync(file, cap);
}

Deno.test("capped reads return a file whole up to the cap, byte for byte (BOM kept, as Deno.readTextFile keeps it)", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const bytes = Uint8Array.from({ length: 200_000 }, (_, i) => (i * 7919) % 251);
    await Deno.writeFile(`${dir}/f`, bytes);
    assert.deepEqual(await readFileCapped(`${dir}/f`, bytes.length), bytes);
    assert.deepEqual(readSync(`${dir}/f`, bytes.length), bytes);
    await Deno.writeTextFile(`${dir}/t`, "\ufeffkind: x\n");
    assert.equal(await readTextFileCapped(`${dir}/t`), await Deno.readTextFile(`${dir}/t`));
    await Deno.writeFile(`${dir}/empty`, new Uint8Array());
    assert.equal((await readFileCapped(`${dir}/empty`)).length, 0);
    await assert.rejects(() => readFileCapped(`${dir}/f`, bytes.length - 1), FileTooLargeError);
    assert.throws(
      () => readSync(`${dir}/f`, bytes.length - 1),
      FileTooLargeError,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("capped reads stop on an endless device instead of reading until memory runs out", async () => {
  await assert.rejects(() => readFileCapped("/dev/zero", 1 << 20), {
    name: "FileTooLargeError",
    message: "file is larger than 1048576 bytes",
  });
  assert.throws(
    () => readSync("/dev/zero", 1 << 20),
    FileTooLargeError,
  );
  await assert.rejects(() => readFileCapped("/nonexistent/file"), Deno.errors.NotFound);
});
