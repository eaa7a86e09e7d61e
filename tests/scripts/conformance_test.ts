// scripts/conformance: bad input is refused before anything is built or booted (exit 2, the
// flag named), a missing build is refused naming the build step, and ginkgo's JSON report is
// read back into the tests a phase selected.
import assert from "node:assert/strict";
import { run } from "../support/commands.ts";
import { repoRoot } from "../support/repo.ts";
import {
  counts,
  daemonSetRolledOut,
  exactFocus,
  readGinkgoReport,
  recordDir,
  resultsTable,
  summary,
} from "../support/conformance.ts";

const conformance = (args: string[], env: Record<string, string> = {}) =>
  run([`${repoRoot}/scripts/conformance`, ...args], { env: { ...Deno.env.toObject(), ...env } });

/** Runs scripts/conformance with a scratch report dir; asserts that nothing was made there. */
async function refused(args: string[], env: Record<string, string> = {}) {
  const scratch = await Deno.makeTempDir({ prefix: "kts-conformance-report-" });
  try {
    const r = await conformance([...args, "--report", `${scratch}/report`], env);
    assert.deepEqual(await Array.fromAsync(Deno.readDir(scratch)), [], "made a report");
    return r;
  } finally {
    await Deno.remove(scratch, { recursive: true });
  }
}

Deno.test("conformance: bad flags are refused with the flag named, exit 2, nothing made", async () => {
  const cases: [string[], RegExp][] = [
    [["--bogus"], /Unknown option '--bogus'/],
    [["--upstream", "--upgrade"], /--upstream and --upgrade do not go together/],
    [["--focus", "(Pods"], /--focus "\(Pods": not a regular expression/],
    [["--skip", ""], /--skip: an empty regular expression/],
    [["--procs", "0"], /--procs "0": a whole number from 1 to 32/],
    [["--procs", "2x"], /--procs "2x": a whole number from 1 to 32/],
    [["--phases", "serial,serial"], /--phases "serial,serial": a list of parallel and serial/],
    [["--phases", "fast"], /--phases "fast": a list of parallel and serial/],
    [["extra"], /Unexpected argument 'extra'/],
  ];
  for (const [args, want] of cases) {
    const r = await refused(args);
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
    assert.match(r.stderr, want, args.join(" "));
    assert.match(r.stderr, /^usage: scripts\/conformance /m);
  }
});

Deno.test("conformance --no-build: a missing binary or image names its build step", async () => {
  const scratch = await Deno.makeTempDir({ prefix: "kts-conformance-bins-" });
  try {
    const missingBins = await refused(["--no-build"], {
      KUBEADM_TS_E2E_BIN_DIR: `${scratch}/none`,
    });
    assert.equal(missingBins.code, 2, missingBins.stderr);
    assert.match(
      missingBins.stderr,
      /\/none\/e2e\.test is missing: run scripts\/k8s-bins --set e2e/,
    );

    // The suite's binaries present (as files), an image list naming an archive that is not.
    await Deno.mkdir(`${scratch}/bin`);
    for (const b of ["e2e.test", "ginkgo"]) await Deno.writeTextFile(`${scratch}/bin/${b}`, "");
    await Deno.mkdir(`${scratch}/images`);
    await Deno.writeTextFile(
      `${scratch}/images/images.txt`,
      "registry.k8s.io/pause:3.10.2\tpause.tar\n",
    );
    const missingImage = await refused(["--no-build"], {
      KUBEADM_TS_E2E_BIN_DIR: `${scratch}/bin`,
      KUBEADM_TS_NODE_IMAGES_DIR: `${scratch}/images`,
    });
    assert.equal(missingImage.code, 2, missingImage.stderr);
    assert.match(
      missingImage.stderr,
      /\/images\/pause\.tar \(registry\.k8s\.io\/pause:3\.10\.2\) is missing: run scripts\/node-images --set v1\.37\.2/,
    );
  } finally {
    await Deno.remove(scratch, { recursive: true });
  }
});

/** A spec of a ginkgo JSON report. */
function spec(
  text: string,
  state: string,
  labels: string[],
  extra: Record<string, unknown> = {},
) {
  return {
    ContainerHierarchyTexts: ["[sig-x] Things"],
    ContainerHierarchyLabels: [[]],
    LeafNodeType: "It",
    LeafNodeText: text,
    LeafNodeLabels: labels,
    State: state,
    RunTime: 2_500_000_000,
    ...extra,
  };
}

Deno.test("conformance: a phase's tests are the Conformance specs of its kind that the focus selects", () => {
  const report = [{
    SuiteDescription: "Kubernetes e2e suite",
    SpecReports: [
      spec("work [Conformance]", "passed", ["Conformance"]),
      spec("break [Conformance]", "failed", ["Conformance"], {
        Failure: { Message: "expected 1\nto equal 2" },
      }),
      spec("alone [Serial] [Conformance]", "skipped", ["Conformance", "Serial"]),
      spec("not conformance", "skipped", []),
      spec("other [Conformance]", "skipped", ["Conformance"]),
      {
        LeafNodeType: "SynchronizedBeforeSuite",
        LeafNodeText: "",
        State: "failed",
        RunTime: 0,
        Failure: { Message: "cluster unreachable\nmore" },
      },
    ],
  }];
  // deno-lint-ignore no-explicit-any
  const parallel = readGinkgoReport(report as any, "parallel", "work|break");
  assert.deepEqual(parallel.tests, [
    { name: "[sig-x] Things work [Conformance]", phase: "parallel", state: "passed", seconds: 2.5 },
    {
      name: "[sig-x] Things break [Conformance]",
      phase: "parallel",
      state: "failed",
      seconds: 2.5,
      message: "expected 1",
    },
  ]);
  assert.deepEqual(parallel.suiteErrors, [
    "parallel: SynchronizedBeforeSuite failed: cluster unreachable",
  ]);
  // ginkgo matches the focus against the suite's description, a space and the name.
  assert.deepEqual(
    // deno-lint-ignore no-explicit-any
    readGinkgoReport(report as any, "parallel", exactFocus(["[sig-x] Things work [Conformance]"]))
      .tests.map((t) => t.name),
    ["[sig-x] Things work [Conformance]"],
  );
  assert.deepEqual(
    // deno-lint-ignore no-explicit-any
    readGinkgoReport(report as any, "parallel", "^\\[sig-x\\]").tests,
    [],
    "no name starts the matched text",
  );
  // deno-lint-ignore no-explicit-any
  const serial = readGinkgoReport(report as any, "serial");
  assert.deepEqual(serial.tests.map((t) => [t.name, t.state]), [
    ["[sig-x] Things alone [Serial] [Conformance]", "skipped"],
  ]);
  assert.deepEqual(counts([...parallel.tests, ...serial.tests]), {
    passed: 1,
    failed: 1,
    skipped: 1,
  });
  assert.equal(
    resultsTable(parallel.tests),
    "failed\t2.5\tparallel\t[sig-x] Things break [Conformance]\n" +
      "passed\t2.5\tparallel\t[sig-x] Things work [Conformance]\n",
  );
  const text = summary({
    kind: "upstream",
    date: "2026-11-29T04:00:00Z",
    commit: "abc",
    clusterSeconds: 200,
    totalSeconds: 3725,
    procs: 5,
  }, { tests: parallel.tests, phaseSeconds: { parallel: 3525 }, suiteErrors: [] });
  assert.match(text, /cluster made by upstream kubeadm v1\.37\.2/);
  assert.match(
    text,
    /^wall time 1h02m05s: cluster 3m20s, parallel 58m45s \(5 ginkgo processes\)$/m,
  );
  assert.match(text, /^1 passed, 1 failed, 0 skipped \(2 tests\)$/m);
  assert.match(text, /^ {2}\[failed\] \[sig-x\] Things break \[Conformance\]\n {6}expected 1$/m);
});

Deno.test("conformance --upgrade: the summary names both versions and the upgrade's share of the cluster time", () => {
  const text = summary({
    kind: "upgrade",
    date: "2026-11-30T08:10:00Z",
    commit: "abc",
    clusterSeconds: 480,
    upgradeSeconds: 190,
    totalSeconds: 3600,
    procs: 5,
  }, { tests: [], phaseSeconds: { parallel: 2000, serial: 1100 }, suiteErrors: [] });
  assert.match(
    text,
    /^Kubernetes v1\.37\.2 conformance, cluster made at v1\.36\.3 by kubeadm-ts, upgraded to v1\.37\.2 by kubeadm-ts/,
  );
  assert.match(text, /kubelet v1\.36\.3 → v1\.37\.2\)/);
  assert.match(
    text,
    /^wall time 1h00m00s: cluster 8m00s \(upgrade 3m10s\), parallel 33m20s \(5 ginkgo processes\), serial 18m20s$/m,
  );
});

Deno.test("conformance --record: each kind in its own folder, a partial run never over a full one", () => {
  assert.equal(recordDir("ours", ["parallel", "serial"]), "conformance/ours");
  assert.equal(recordDir("ours", ["parallel"]), "conformance/ours");
  assert.equal(recordDir("ours", ["serial"]), "conformance/ours/serial");
  assert.equal(recordDir("upstream", ["parallel"], { focus: "x" }), "conformance/upstream/subset");
  assert.equal(recordDir("upgrade", ["parallel", "serial"]), "conformance/upgrade");
  assert.equal(recordDir("upgrade", ["serial"], { skip: "y" }), "conformance/upgrade/subset");
});

Deno.test("conformance --upgrade: kube-proxy counts as rolled out once every Pod runs the new image", () => {
  const ds = (image: string, status: Record<string, number>, generation = 2) => ({
    metadata: { generation },
    spec: { template: { spec: { containers: [{ name: "kube-proxy", image }] } } },
    status: { observedGeneration: 2, desiredNumberScheduled: 3, ...status },
  });
  const NEW = "registry.k8s.io/kube-proxy:v1.37.2";
  assert.equal(
    daemonSetRolledOut(ds(NEW, { updatedNumberScheduled: 3, numberAvailable: 3 }), NEW),
    true,
  );
  assert.equal(
    daemonSetRolledOut(
      ds("registry.k8s.io/kube-proxy:v1.36.3", { updatedNumberScheduled: 3, numberAvailable: 3 }),
      NEW,
    ),
    false,
    "the old image",
  );
  assert.equal(
    daemonSetRolledOut(ds(NEW, { updatedNumberScheduled: 2, numberAvailable: 3 }), NEW),
    false,
    "a Pod left",
  );
  assert.equal(
    daemonSetRolledOut(ds(NEW, { updatedNumberScheduled: 3, numberAvailable: 2 }), NEW),
    false,
    "not available",
  );
  assert.equal(
    daemonSetRolledOut(ds(NEW, { updatedNumberScheduled: 3, numberAvailable: 3 }, 3), NEW),
    false,
    "the spec not yet observed",
  );
  assert.equal(
    daemonSetRolledOut(
      ds(NEW, { desiredNumberScheduled: 0, updatedNumberScheduled: 0, numberAvailable: 0 }),
      NEW,
    ),
    false,
    "no Pod",
  );
});
