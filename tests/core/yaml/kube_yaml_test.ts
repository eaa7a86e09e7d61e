import assert from "node:assert/strict";
import {
  fullKubeYaml,
  parseKubeYaml,
  parsesAsNonString,
  readsAsNonString,
  toKubeYaml,
} from "../../../core/yaml/kube_yaml.ts";
import { planControlPlane, planWorker, seededRandom } from "../../../mod.ts";

/** Values whose every scalar takes the direct writer, and ones that need the `yaml` emitter. */
const TRICKY: unknown[] = [
  {
    a: [[1, 2], [], {}, [[[]]], [{}]],
    b: { c: [{ d: [], e: { x: ["y"] } }] },
    "1": "2",
    words: ["true", "Yes", "off", "NULL", "nULL", "y", "e8", "E-5", "etcd", "~"],
    numbers: ["0755", "1.5", "+1", "-1", "0x1f", "1:20", ".inf", "2001-12-14", "1_000"],
    indicators: ["-", "-a", "a:", "a:b", "::1", "---x", "...x", "x---", "=x", "a,b", "a@b", "*a"],
    shell: ["--hostname-override=$(NODE_NAME)", "--controllers=*,bootstrapsigner"],
    empty: "",
    n: null,
    u: undefined,
    ints: [-1, 0, 42, 1.5, -0],
    blocks: ["a\nb\n", "a\nb", "a\n\n\nb\n", "a\nb\n\n", " a\nb", "a \nb ", "a\n  b\n", "é\nb"],
    nested: [{ k: "line\nline\n", l: ["x\ny"] }],
  },
  [{ a: 1 }, [{ b: 2, c: [3] }], "x"],
  { "a b": 1, "k\nl": 2, long: "a".repeat(1500) },
  { date: new Date(0) },
];

Deno.test("toKubeYaml() writes exactly what the yaml library's emitter writes", () => {
  for (const value of TRICKY) assert.equal(toKubeYaml(value), fullKubeYaml(value));
  const chars = "aZ09_./+=:,@-~ yYnN.eE$()*\n\n  #|>'\"";
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (let i = 0; i < 3000; i++) {
    let s = "";
    for (let j = Math.floor(next() * 9); j > 0; j--) s += chars[Math.floor(next() * chars.length)];
    const value = { [s || "k"]: s, l: [s, { m: s, n: [s] }], o: { p: s } };
    assert.equal(toKubeYaml(value), fullKubeYaml(value), JSON.stringify(s));
  }
});

Deno.test("toKubeYaml() writes a plan's objects and files as the yaml library does", async () => {
  const cp = await planControlPlane({
    config: "apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\n" +
      "encryptionAlgorithm: ECDSA-P256\ncontrolPlaneEndpoint: cp.example:6443\n",
    host: { hostname: "cp1", advertiseAddress: "192.0.2.10" },
    random: seededRandom("kube-yaml-test"),
    clock: { now: () => new Date("2026-01-01T00:00:00Z") },
    uploadCerts: true,
  });
  const worker = await planWorker({
    cluster: cp,
    host: { hostname: "w1", advertiseAddress: "192.0.2.21" },
  });
  const values: unknown[] = [...cp.objects];
  for (const f of [...cp.files, ...worker.files]) {
    if (/\.(ya?ml|conf)$/.test(f.path)) {
      values.push(...parseKubeYaml(f.content).map((d) => d.value));
    }
  }
  assert.ok(values.length > 30);
  for (const value of values) assert.equal(toKubeYaml(value), fullKubeYaml(value));
});

Deno.test("readsAsNonString()'s shortcuts agree with a YAML 1.1 parse", () => {
  let seed = 11;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (const chars of ["09aeEfxX+-._:/=~ tTZyn#!&*'\"|>%@?{}[],\n", "019+-.:/=eE_xbyYnNoO"]) {
    for (let i = 0; i < 20000; i++) {
      let s = "";
      for (let j = 1 + Math.floor(next() * 10); j > 0; j--) {
        s += chars[Math.floor(next() * chars.length)];
      }
      assert.equal(readsAsNonString(s), parsesAsNonString(s), JSON.stringify(s));
    }
  }
  for (const s of ["e8", "E-5", "Yes", "nULL", "3.10", "0755", "a/b", "x=1", "---/", "/"]) {
    assert.equal(readsAsNonString(s), parsesAsNonString(s), s);
  }
});
