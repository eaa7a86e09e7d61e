import assert from "node:assert/strict";
import { toKyaml } from "../../../core/yaml/kyaml.ts";
import { UPSTREAM_DEFAULT_IMAGES } from "../../support/upstream_images.ts";

Deno.test("toKyaml() prints upstream kubeadm v1.37.2's `config images list -o kyaml` object", () => {
  // Upstream's output for its default images, captured from the binary
  // (/work/notes/upstream-v1.37.2/extra/images-list-kyaml.txt).
  const images = UPSTREAM_DEFAULT_IMAGES;
  assert.equal(
    toKyaml({ kind: "Images", apiVersion: "output.kubeadm.k8s.io/v1alpha3", images }),
    `---
{
  kind: "Images",
  apiVersion: "output.kubeadm.k8s.io/v1alpha3",
  images: [
${images.map((i) => `    "${i}",\n`).join("")}  ],
}
`,
  );
});

Deno.test("toKyaml() cuddles lists of mappings, keeps JSON scalars, quotes ambiguous keys", () => {
  assert.equal(
    toKyaml({
      list: [{ a: 1, b: null }, { c: true }],
      empty: [],
      none: {},
      "1": "one",
      "yes": "y",
      "a-b": "x",
      "-a": "x",
      residual: -5,
    }),
    `---
{
  "1": "one",
  list: [{
    a: 1,
    b: null,
  }, {
    c: true,
  }],
  empty: [],
  none: {},
  "yes": "y",
  a-b: "x",
  "-a": "x",
  residual: -5,
}
`,
  );
});

Deno.test("toKyaml() escapes strings and folds multi-line ones over escaped newlines", () => {
  assert.equal(toKyaml({ s: 'say "hi"\\ \u0001' }), `---\n{\n  s: "say \\"hi\\"\\\\ \\x01",\n}\n`);
  assert.equal(toKyaml({ k: "a\nb" }), `---\n{\n  k: "\\\n     a\\n\\\n     b\\\n    ",\n}\n`);
});
