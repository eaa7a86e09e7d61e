// Stacked-etcd join decisions over a fake etcd: learner add (idempotent), initial cluster,
// promotion only once the learner started, endpoints from the etcd mirror Pods.
import assert from "node:assert/strict";
import type { Pod } from "kubernetes-types/core/v1.d.ts";
import {
  addLearnerMember,
  checkClusterHealth,
  checkQuorumWithout,
  checkVotingMembersAnswer,
  initialClusterFor,
  memberByPeerURL,
  memberIdHex,
  promoteLearner,
  waitForClusterAvailable,
} from "../../../core/etcd/member_join.ts";
import { etcdEndpointsFromPods, syncEtcdClient } from "../../../core/etcd/endpoints.ts";
import { type EtcdClient, type EtcdMember, EtcdRequestError } from "../../../core/ports/etcd.ts";
import { etcdTiming } from "../../../core/etcd/timing.ts";
import { KubeadmError } from "../../../core/errors.ts";
import type { TransportLimits } from "../../../core/ports/transport.ts";
import { FakeClock } from "../../support/fake_clock.ts";
import { RecordingPrinter } from "../../support/recording_printer.ts";
import { failedWait, SilentPeer } from "../../support/silent_peer.ts";

class FakeEtcd implements EtcdClient {
  endpoints = ["https://10.0.0.1:2379"];
  members: EtcdMember[] = [{
    id: "10276657743932975437",
    name: "cp1",
    peerURLs: ["https://10.0.0.1:2380"],
    clientURLs: ["https://10.0.0.1:2379"],
    isLearner: false,
  }];
  calls: string[] = [];
  /** Fail the next N promote calls as etcd does while the learner catches up. */
  promoteFailures = 0;
  /** The learner "starts" after this many list calls. */
  startsAfterLists = 0;
  #lists = 0;

  listMembers(_limits?: TransportLimits): Promise<EtcdMember[]> {
    this.calls.push("list");
    if (++this.#lists > this.startsAfterLists) {
      for (const m of this.members) if (m.isLearner && m.name === "") m.name = "cp2";
    }
    return Promise.resolve(structuredClone(this.members));
  }
  addMember(peerURLs: readonly string[], isLearner: boolean) {
    this.calls.push(`add ${peerURLs.join(",")} learner=${isLearner}`);
    const member = {
      id: "42",
      name: "",
      peerURLs: [...peerURLs],
      clientURLs: [],
      isLearner,
    };
    this.members.push(member);
    return Promise.resolve({ member, members: structuredClone(this.members) });
  }
  promoteMember(id: string, _limits?: TransportLimits) {
    this.calls.push(`promote ${id}`);
    if (this.promoteFailures-- > 0) {
      return Promise.reject(
        new EtcdRequestError(
          "etcdserver: can only promote a learner member which is in sync with leader",
          { grpcCode: 9 },
        ),
      );
    }
    for (const m of this.members) if (m.id === id) m.isLearner = false;
    return Promise.resolve(structuredClone(this.members));
  }
  status(_endpoint: string, _limits?: TransportLimits): Promise<void> {
    return Promise.resolve();
  }
  removeMember(): Promise<EtcdMember[]> {
    return Promise.reject(new Error("a joining member removes nobody"));
  }
}

function timing() {
  const clock = new FakeClock();
  return { clock, t: etcdTiming({ clock, sleep: clock.sleep }) };
}

Deno.test("a new member is added as a learner; a retried join does not add it twice", async () => {
  const etcd = new FakeEtcd();
  const { t } = timing();
  const initial = await addLearnerMember(etcd, "cp2", "https://10.0.0.2:2380", t);
  assert.deepEqual(initial, [
    { name: "cp1", peerURL: "https://10.0.0.1:2380" },
    { name: "cp2", peerURL: "https://10.0.0.2:2380" },
  ]);
  assert.deepEqual(await addLearnerMember(etcd, "cp2", "https://10.0.0.2:2380", t), initial);
  assert.deepEqual(etcd.calls.filter((c) => c.startsWith("add")), [
    "add https://10.0.0.2:2380 learner=true",
  ]);
});

Deno.test("unnamed members appear under their hex ID in the initial cluster", () => {
  assert.equal(memberIdHex("10276657743932975437"), "8e9e05c52164694d");
  assert.deepEqual(
    initialClusterFor(
      [
        {
          id: "10276657743932975437",
          name: "",
          peerURLs: ["https://a:2380"],
          clientURLs: [],
          isLearner: false,
        },
      ],
      "cp3",
      "https://c:2380",
    ),
    [{ name: "8e9e05c52164694d", peerURL: "https://a:2380" }, {
      name: "cp3",
      peerURL: "https://c:2380",
    }],
  );
});

Deno.test("promotion waits for the learner to start and retries until it is in sync", async () => {
  const etcd = new FakeEtcd();
  const { clock, t } = timing();
  await addLearnerMember(etcd, "cp2", "https://10.0.0.2:2380", t);
  etcd.startsAfterLists = 4;
  etcd.promoteFailures = 3;
  await promoteLearner(etcd, "42", t);
  assert.equal(etcd.members.find((m) => m.id === "42")!.isLearner, false);
  assert.equal(etcd.calls.filter((c) => c === "promote 42").length, 4);
  assert.ok(clock.sleeps.every((s) => s === 500));
  // Already a voter: nothing to do.
  etcd.calls = [];
  await promoteLearner(etcd, "42", t);
  assert.deepEqual(etcd.calls, ["list"]);
});

Deno.test("a learner that never starts fails after the etcd API timeout", async () => {
  const etcd = new FakeEtcd();
  const { t } = timing();
  await addLearnerMember(etcd, "cp2", "https://10.0.0.2:2380", t);
  etcd.startsAfterLists = Infinity;
  await assert.rejects(() => promoteLearner(etcd, "42", t), /the etcd member 2a is not started/);
});

Deno.test("cluster availability: retries, then a timeout error", async () => {
  const etcd = new FakeEtcd();
  const { t } = timing();
  let fails = 3;
  etcd.status = () => fails-- > 0 ? Promise.reject(new Error("unavailable")) : Promise.resolve();
  await waitForClusterAvailable(etcd, t, 8, 5000);
  etcd.status = () => Promise.reject(new Error("unavailable"));
  await assert.rejects(
    () => waitForClusterAvailable(etcd, t, 2, 5000),
    /^KubeadmError: timeout waiting for etcd cluster to be available: the status of member https:\/\/10\.0\.0\.1:2379 is not available: unavailable$/,
  );
});

Deno.test("cluster health needs a quorum of the members, not every one (v1.35+)", async () => {
  const etcd = new FakeEtcd();
  const { t } = timing();
  etcd.endpoints = ["https://a:2379", "https://b:2379", "https://c:2379"];
  const down = new Set(["https://c:2379"]);
  etcd.status = (ep: string) =>
    down.has(ep) ? Promise.reject(new Error("connection refused")) : Promise.resolve();
  await checkClusterHealth(etcd, t);
  await waitForClusterAvailable(etcd, t, 1, 5000);
  down.add("https://b:2379");
  await assert.rejects(
    () => checkClusterHealth(etcd, t),
    /^KubeadmError: etcd cluster is not healthy: \[the status of member https:\/\/b:2379 is not available: connection refused, the status of member https:\/\/c:2379 is not available: connection refused\]$/,
  );
  await assert.rejects(() => waitForClusterAvailable(etcd, t, 2, 5000), /timeout waiting/);
  // Two members: both must answer (1 of 2 is no majority).
  etcd.endpoints = ["https://a:2379", "https://c:2379"];
  await assert.rejects(() => checkClusterHealth(etcd, t), /not healthy/);
});

Deno.test("promotion is idempotent: a member found voting before an attempt counts as promoted", async () => {
  const etcd = new FakeEtcd();
  const { t } = timing();
  await addLearnerMember(etcd, "cp2", "https://10.0.0.2:2380", t);
  // The first promote succeeds on etcd but its answer is lost.
  let first = true;
  const promote = etcd.promoteMember.bind(etcd);
  etcd.promoteMember = (id: string) => {
    const r = promote(id);
    if (first) {
      first = false;
      return Promise.reject(new Error("context deadline exceeded"));
    }
    return r;
  };
  await promoteLearner(etcd, "42", t);
  assert.equal(etcd.calls.filter((c) => c === "promote 42").length, 1);
});

Deno.test("etcd endpoints come from the mirror Pods' annotation", () => {
  const pod = (url?: string): Pod => ({
    metadata: {
      name: "etcd-x",
      annotations: url ? { "kubeadm.kubernetes.io/etcd.advertise-client-urls": url } : {},
    },
  });
  assert.deepEqual(etcdEndpointsFromPods([pod("https://10.0.0.1:2379"), pod()]), {
    endpoints: ["https://10.0.0.1:2379"],
    total: 2,
  });
});

Deno.test("the availability wait and the health check log upstream's lines", async () => {
  const etcd = new FakeEtcd();
  const { t } = timing();
  etcd.endpoints = ["https://a:2379", "https://b:2379", "https://c:2379"];
  let fails = 1;
  etcd.status = (ep: string) =>
    ep === "https://c:2379" && fails-- > 0
      ? Promise.reject(new Error("connection refused"))
      : Promise.resolve();
  const out = new RecordingPrinter();
  await waitForClusterAvailable(etcd, t, 3, 15_000, out.log);
  await checkClusterHealth(etcd, t, out.log);
  assert.deepEqual(out.logged.map((l) => `${l.level} ${l.source} ${l.message}`), [
    "2 member_join.ts [etcd] attempting to see if all cluster endpoints ([https://a:2379 https://b:2379 https://c:2379]) are available 1/3",
    "1 member_join.ts [etcd] cluster has quorum: true; some members are not healthy: the status of member https://c:2379 is not available: connection refused",
  ]);
  out.logged.length = 0;
  etcd.status = () => Promise.reject(new Error("unavailable"));
  etcd.endpoints = ["https://a:2379"];
  await assert.rejects(() => waitForClusterAvailable(etcd, t, 2, 15_000, out.log));
  assert.deepEqual(out.messages(2), [
    "[etcd] attempting to see if all cluster endpoints ([https://a:2379]) are available 1/2",
    "[etcd] cluster has quorum: false; some members are not healthy: the status of member https://a:2379 is not available: unavailable",
    "[etcd] Waiting 15s until next retry",
    "[etcd] attempting to see if all cluster endpoints ([https://a:2379]) are available 2/2",
    "[etcd] cluster has quorum: false; some members are not healthy: the status of member https://a:2379 is not available: unavailable",
  ]);
});

Deno.test("finding the endpoints logs the Pods it waits for and what it found, then the sync", async () => {
  const out = new RecordingPrinter();
  const ready = { conditions: [{ type: "Ready", status: "True" }] };
  const pods: Pod[] = [
    {
      metadata: {
        name: "etcd-cp1",
        annotations: {
          "kubeadm.kubernetes.io/etcd.advertise-client-urls": "https://10.0.0.1:2379",
        },
      },
      status: ready,
    },
    { metadata: { name: "etcd-cp2" } },
  ];
  assert.deepEqual(etcdEndpointsFromPods(pods, out.log).endpoints, ["https://10.0.0.1:2379"]);
  assert.deepEqual(out.messages(3), [
    'etcd pod "etcd-cp2" is not ready',
    'etcd Pod "etcd-cp2" is missing the "kubeadm.kubernetes.io/etcd.advertise-client-urls" annotation; cannot infer etcd advertise client URL using the Pod annotation',
  ]);
  out.logged.length = 0;
  const etcd = new FakeEtcd();
  etcd.members[0].clientURLs = ["https://10.0.0.1:2379", "https://10.0.0.9:2379"];
  const synced = await syncEtcdClient(
    (endpoints) => {
      const c = new FakeEtcd();
      c.endpoints = [...endpoints];
      c.members = etcd.members;
      return c;
    },
    ["https://10.0.0.1:2379"],
    timing().t,
    out.log,
  );
  assert.deepEqual(synced.endpoints, ["https://10.0.0.1:2379", "https://10.0.0.9:2379"]);
  assert.deepEqual(out.messages(1), [
    "etcd endpoints read from etcd: https://10.0.0.1:2379,https://10.0.0.9:2379",
    "update etcd endpoints: https://10.0.0.1:2379,https://10.0.0.9:2379",
  ]);
});

Deno.test("every etcd wait of a join ends within its timeout: a silent etcd's calls are cut there", async () => {
  // Three endpoints, each request 25s unless the call is bounded: unbounded, one call took 75s
  // and the second ran to 2m30.5s.
  const cases: [
    string,
    (etcd: FakeEtcd, t: ReturnType<typeof timing>["t"]) => Promise<unknown>,
    RegExp,
  ][] = [
    [
      "add",
      (etcd, t) => addLearnerMember(etcd, "cp2", "https://10.0.0.2:2380", t),
      /^KubeadmError: error adding the etcd member https:\/\/10\.0\.0\.2:2380: the wait's timeout of 2m0s ran out/,
    ],
    [
      "member ID",
      (etcd, t) => memberByPeerURL(etcd, "https://10.0.0.1:2380", t),
      /^KubeadmError: the wait's timeout of 2m0s ran out during its last attempt: no etcd endpoint answered/,
    ],
    [
      "learner start",
      (etcd, t) => promoteLearner(etcd, "42", t),
      /^KubeadmError: the wait's timeout of 2m0s ran out during its last attempt: failed to get member 2a status: /,
    ],
  ];
  for (const [name, wait, message] of cases) {
    const etcd = new FakeEtcd();
    const { clock, t } = timing();
    const peer = new SilentPeer(clock, 25_000, 3);
    etcd.listMembers = (limits) => peer.etcd(limits);
    const { error, elapsedMs } = await failedWait(clock, () => wait(etcd, t));
    assert.equal(elapsedMs, 120_000, `${name}: the wait's 2m, not 2m30.5s`);
    assert.match(error, message, name);
    assert.ok(peer.limits.every((l) => l !== undefined && l <= 120_000), name);
  }

  // Promotion: the learner has started, every promote request hangs.
  const etcd = new FakeEtcd();
  const { clock, t } = timing();
  await addLearnerMember(etcd, "cp2", "https://10.0.0.2:2380", t);
  const peer = new SilentPeer(clock, 25_000, 3);
  etcd.promoteMember = (_id, limits) => peer.etcd(limits);
  const promotion = await failedWait(clock, () => promoteLearner(etcd, "42", t));
  assert.equal(promotion.elapsedMs, 120_000);
  assert.match(
    promotion.error,
    /^KubeadmError: error promoting the etcd learner 2a: the wait's timeout of 2m0s ran out during its last attempt: no etcd endpoint answered: timeout after \d+ms$/,
  );

  // The quorum check waits for each endpoint in turn (as upstream), each within 2m.
  etcd.endpoints = ["https://a:2379", "https://b:2379", "https://c:2379"];
  etcd.status = (_ep, limits) => peer.etcd(limits);
  const health = await failedWait(clock, () => checkClusterHealth(etcd, t));
  assert.equal(health.elapsedMs, 3 * 120_000);
  assert.match(health.error, /the wait's timeout of 2m0s ran out/);
});

/** Voting members cp1..cpN at 10.0.0.<n>; `down` answer no status. */
function votersClient(n: number, down: string[]): EtcdClient & { asked: string[] } {
  const members: EtcdMember[] = Array.from({ length: n }, (_, i) => ({
    id: String(1000 + i),
    name: `cp${i + 1}`,
    peerURLs: [`https://10.0.0.${i + 1}:2380`],
    clientURLs: [`https://10.0.0.${i + 1}:2379`],
    isLearner: false,
  }));
  const asked: string[] = [];
  return {
    asked,
    endpoints: ["https://10.0.0.1:2379"],
    listMembers: () => Promise.resolve(members),
    addMember: () => Promise.reject(new Error("unused")),
    promoteMember: () => Promise.reject(new Error("unused")),
    removeMember: () => Promise.reject(new Error("unused")),
    status(endpoint, limits) {
      asked.push(`${endpoint} ${limits?.timeoutMs}`);
      return down.some((d) => endpoint.includes(d))
        ? Promise.reject(new Error("context deadline exceeded"))
        : Promise.resolve();
    },
  };
}

Deno.test("an upgrade restarts a member only when the others keep quorum without it", async () => {
  const t = etcdTiming({ clock: new FakeClock(), sleep: () => Promise.resolve() });
  const me = "https://10.0.0.1:2380";
  // Three voters, all up: restarting one leaves two of three.
  const healthy = votersClient(3, []);
  await checkQuorumWithout(healthy, me, t, 2_000);
  assert.deepEqual(healthy.asked, ["https://10.0.0.2:2379 2000", "https://10.0.0.3:2379 2000"]);
  // One of the others down: restarting this one would leave one of three.
  await assert.rejects(
    () => checkQuorumWithout(votersClient(3, ["10.0.0.3"]), me, t, 2_000),
    (e: unknown) => {
      assert.ok(e instanceof KubeadmError);
      assert.equal(
        e.message,
        "restarting this etcd member would leave the etcd cluster without quorum (2 of 3 voting members): 1 of the other 2 is not healthy: cp3 (https://10.0.0.3:2379): context deadline exceeded",
      );
      assert.match(e.hint ?? "", /bring the unhealthy members back/);
      return true;
    },
  );
  // Five voters, one other down: four of five stay, three without this one: enough.
  await checkQuorumWithout(votersClient(5, ["10.0.0.5"]), me, t, 2_000);
  // One or two voters: any restart loses quorum, which an upgrade cannot avoid.
  await checkQuorumWithout(votersClient(2, ["10.0.0.2"]), me, t, 2_000);
  await checkQuorumWithout(votersClient(1, []), me, t, 2_000);
});

Deno.test("a join refuses at once, naming it, when a voting etcd member does not answer", async () => {
  const clock = new FakeClock();
  const t = etcdTiming({ clock, sleep: clock.sleep });
  // Every voter answers; a learner that does not is no voter etcd waits for.
  const healthy = votersClient(3, ["10.0.0.4"]);
  const members = await healthy.listMembers();
  members.push({
    id: "1003",
    name: "",
    peerURLs: ["https://10.0.0.4:2380"],
    clientURLs: ["https://10.0.0.4:2379"],
    isLearner: true,
  });
  await checkVotingMembersAnswer(healthy, t, "run the join again");
  assert.deepEqual(healthy.asked.map((a) => a.split(" ")[0]).sort(), [
    "https://10.0.0.1:2379",
    "https://10.0.0.2:2379",
    "https://10.0.0.3:2379",
  ]);
  // One voter down, quorum kept: etcd would refuse the member add, so the join refuses.
  await assert.rejects(
    () => checkVotingMembersAnswer(votersClient(3, ["10.0.0.3"]), t, "run the join again"),
    (e: unknown) => {
      assert.ok(e instanceof KubeadmError);
      assert.equal(
        e.message,
        "the etcd member cp3 (https://10.0.0.3:2379) does not answer, and etcd refuses to add a member while a voting member is down: context deadline exceeded",
      );
      assert.equal(
        e.hint,
        "bring it back (or remove it with 'etcdctl member remove' if gone for good), then run the join again",
      );
      return true;
    },
  );
  await assert.rejects(
    () => checkVotingMembersAnswer(votersClient(5, ["10.0.0.2", "10.0.0.5"]), t, "rerun"),
    /^KubeadmError: the etcd members cp2 \(https:\/\/10\.0\.0\.2:2379\), cp5 \(https:\/\/10\.0\.0\.5:2379\) do not answer, .*: \[cp2 \(.*\): context deadline exceeded, cp5 \(.*\): context deadline exceeded\]$/,
  );
});

Deno.test("the voting members' check ends within its one deadline", async () => {
  const clock = new FakeClock();
  const t = etcdTiming({ clock, sleep: clock.sleep });
  const client = votersClient(3, []);
  const peer = new SilentPeer(clock, 2_000);
  client.status = (_ep, limits) => peer.etcd(limits);
  const { error, elapsedMs } = await failedWait(
    clock,
    () => checkVotingMembersAnswer(client, t, "run the join again", 10_000),
  );
  // The fake clock runs the parallel requests one after the other: those started once the
  // first used up the deadline get the least window (1 ms) each.
  assert.ok(elapsedMs <= 10_002, `took ${elapsedMs}ms`);
  assert.match(error, /^KubeadmError: the etcd members cp1 .*, cp2 .*, cp3 .* do not answer/);
  assert.ok(peer.limits.every((l) => l !== undefined && l <= 10_000));
  // The member list is bounded by the same deadline.
  const silentList = votersClient(3, []);
  silentList.listMembers = (limits) => peer.etcd(limits);
  const list = await failedWait(
    clock,
    () => checkVotingMembersAnswer(silentList, t, "run the join again", 10_000),
  );
  assert.ok(list.elapsedMs <= 10_002, `took ${list.elapsedMs}ms`);
});
