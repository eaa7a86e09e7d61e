// The conformance suite's test images (scripts/node-images --set e2e): importable into a real
// containerd under the names e2e.test v1.37.2 gives them, each image's tools answering. Part of the
// long suites (scripts/test --long), with the conformance slice that uses these images.
import assert from "node:assert/strict";
import { run } from "../support/commands.ts";
import { binSetDir } from "../support/k8s_bins.ts";
import { repoRoot } from "../support/repo.ts";

const nodeImages = (...args: string[]) => run([`${repoRoot}/scripts/node-images`, ...args]);

Deno.test("the conformance suite's test images import under the names e2e.test v1.37.2 gives them", async () => {
  const r = await nodeImages("--verify", "--set", "e2e");
  assert.equal(r.code, 0, `scripts/node-images --verify --set e2e:\n${r.stderr}`);
  const dir = r.stdout.trim().split("\n").pop()!;
  const listed = (await Deno.readTextFile(`${dir}/images.txt`)).trim().split("\n")
    .map((l) => l.split("\t")[0]);
  // Every name is one upstream's suite uses (`e2e.test --list-images`: test/utils/image).
  const e2eTest = `${await binSetDir("e2e", "KUBEADM_TS_E2E_BIN_DIR", ["e2e.test"])}/e2e.test`;
  const list = await run([e2eTest, "--list-images"]);
  assert.equal(list.code, 0, list.stderr);
  const upstream = new Set(list.stdout.trim().split("\n"));
  for (const ref of listed) assert.ok(upstream.has(ref), `${ref} is not an image of the suite`);
  for (
    const image of [
      "agnhost:2.66.1",
      "agnhost:2.55",
      "busybox:1.37.0-2",
      "nginx:1.27.0-2",
      "glibc-dns-testing:2.1.1",
      "nonroot:1.5",
      "nonewprivs:1.4",
      "kitten:1.8",
      "nautilus:1.8",
      "sample-apiserver:1.29.2",
    ]
  ) {
    const ref = `registry.k8s.io/e2e-test-images/${image}`;
    assert.ok(listed.includes(ref), `${ref} is not built`);
    assert.match(r.stderr, new RegExp(`ok ${ref.replaceAll(".", "\\.")}: `), `${ref} verified`);
  }
});
