/**
 * Adding this control-plane node's etcd member to the stacked etcd cluster, as upstream v1.37
 * does (`CreateStackedEtcdStaticPodManifestFile` with `AddMemberAsLearner`, `MemberPromote`,
 * `WaitForClusterAvailable`):
 *
 * 1. add `https://<advertiseAddress>:2380` as a **learner** (a member with that peer URL already
 *    present is reused: a retried join converges), and compute `--initial-cluster` from the
 *    returned list (this node under its own name, unnamed members under their hex ID);
 * 2. the caller writes `etcd.yaml` with that initial cluster and `--initial-cluster-state=existing`;
 * 3. wait until the learner has started (etcd reports its name), promote it to a voting member
 *    (retried while etcd says it is not in sync yet; a member found voting before an attempt
 *    counts as promoted), then — with the new member's endpoint added only now — wait until a
 *    quorum of the endpoints answers (v1.35+: a majority, not every member).
 *
 * @module
 */
import { errorMessage, KubeadmError } from "../errors.ts";
import { poll } from "../kube/retry.ts";
import type { InitialClusterMember } from "../manifests/etcd.ts";
import type { EtcdClient, EtcdMember } from "../ports/etcd.ts";
import type { EtcdTiming } from "./timing.ts";
import type { LogFn } from "../ports/printer.ts";
import { formatDuration } from "../text/duration.ts";

/** Retries of the final availability check (upstream `etcdHealthyCheckRetries`). */
/** This module's name in verbose log lines. */
const LOG_SOURCE = "member_join.ts";

export const ETCD_HEALTHY_CHECK_RETRIES = 8;
/** Interval of the final availability check (upstream `etcdHealthyCheckInterval`). */
export const ETCD_HEALTHY_CHECK_INTERVAL_MS = 5_000;

/** A member ID (decimal uint64 string) in etcd's usual hexadecimal form. */
export function memberIdHex(id: string): string {
  try {
    return BigInt(id).toString(16);
  } catch {
    return id;
  }
}

/**
 * The `--initial-cluster` members from a member list after adding `peerURL`: the new member
 * under `name`, the others under their name, or their hex ID while they have none.
 */
export function initialClusterFor(
  members: readonly EtcdMember[],
  name: string,
  peerURL: string,
): InitialClusterMember[] {
  const out: InitialClusterMember[] = [];
  for (const m of members) {
    const url = m.peerURLs[0];
    if (url === undefined) continue;
    if (url === peerURL) out.push({ name, peerURL });
    else out.push({ name: m.name || memberIdHex(m.id), peerURL: url });
  }
  // A member list read before the change was applied everywhere may lack the new member.
  if (!out.some((m) => m.peerURL === peerURL)) out.push({ name, peerURL });
  return out;
}

/** A member list as upstream logs it (Go's `%v` of its members: `[{name peerURL} …]`). */
export function memberListText(members: readonly { name: string; peerURL: string }[]): string {
  return `[${members.map((m) => `{${m.name} ${m.peerURL}}`).join(" ")}]`;
}

function isPeerExists(e: unknown): boolean {
  return /peer ?urls? already exists/i.test(errorMessage(e));
}

/**
 * Adds this node as a learner (or finds it already added) and returns the initial cluster for
 * its manifest. Transient failures are retried until the etcd API timeout; the last error is
 * reported.
 */
export async function addLearnerMember(
  client: EtcdClient,
  name: string,
  peerURL: string,
  t: EtcdTiming,
  log?: LogFn,
): Promise<InitialClusterMember[]> {
  const say = (level: number, m: string) => log?.(level, LOG_SOURCE, m);
  const members = await poll<EtcdMember[]>(async (window) => {
    let list: EtcdMember[];
    try {
      list = await client.listMembers(window.limits());
    } catch (e) {
      return { done: false, error: e };
    }
    if (list.some((m) => m.peerURLs[0] === peerURL)) {
      say(
        5,
        `The peer URL ${
          JSON.stringify(peerURL)
        } for the added etcd member already exists. Skipping etcd member addition`,
      );
      return { done: true, value: list };
    }
    try {
      say(1, `[etcd] Adding etcd member ${JSON.stringify(peerURL)} as learner`);
      const added = await client.addMember([peerURL], true, window.limits());
      return { done: true, value: added.members };
    } catch (e) {
      if (isPeerExists(e)) {
        say(
          5,
          "The peer URL for the added etcd member already exists. Fetching the existing etcd members",
        );
        try {
          return { done: true, value: await client.listMembers(window.limits()) };
        } catch (e2) {
          return { done: false, error: e2 };
        }
      }
      return { done: false, error: e };
    }
  }, t).catch((e) => {
    throw new KubeadmError(`error adding the etcd member ${peerURL}: ${errorMessage(e)}`, {
      cause: e,
    });
  });
  return initialClusterFor(members, name, peerURL);
}

/** The member list, retried until the etcd API timeout. */
function listMembersRetried(client: EtcdClient, t: EtcdTiming): Promise<EtcdMember[]> {
  return poll<EtcdMember[]>(async (window) => {
    try {
      return { done: true, value: await client.listMembers(window.limits()) };
    } catch (e) {
      return { done: false, error: e };
    }
  }, t);
}

/** The member whose first peer URL is `peerURL` (upstream `GetMemberID`). */
export async function memberByPeerURL(
  client: EtcdClient,
  peerURL: string,
  t: EtcdTiming,
): Promise<EtcdMember> {
  const members = await listMembersRetried(client, t);
  const m = members.find((x) => x.peerURLs[0] === peerURL);
  if (!m) throw new KubeadmError(`no member ID found for peer URL ${peerURL}`);
  return m;
}

/**
 * Waits for the learner to start, then promotes it (upstream `MemberPromote`); a member that
 * is already a voter is left alone.
 */
export async function promoteLearner(
  client: EtcdClient,
  id: string,
  t: EtcdTiming,
  log?: LogFn,
): Promise<void> {
  const say = (level: number, m: string) => log?.(level, LOG_SOURCE, m);
  const hex = memberIdHex(id);
  say(1, `[etcd] Waiting for a learner to start: ${hex}`);
  const ready = await poll<boolean>(async (window) => {
    let m: EtcdMember | undefined;
    try {
      m = (await client.listMembers(window.limits())).find((x) => x.id === id);
    } catch (e) {
      return {
        done: false,
        error: new KubeadmError(`failed to get member ${hex} status: ${errorMessage(e)}`),
      };
    }
    if (!m) return { done: false, error: new KubeadmError(`member ${hex} not found`) };
    if (!m.isLearner) {
      say(1, `[etcd] Member ${hex} was already promoted.`);
      return { done: true, value: false };
    }
    if (m.name === "") {
      say(1, `[etcd] Member ${hex} is not started yet. Waiting for it to be started.`);
      return { done: false, error: new KubeadmError(`the etcd member ${hex} is not started`) };
    }
    return { done: true, value: true };
  }, t).catch((e) => {
    throw new KubeadmError(errorMessage(e), { cause: e });
  });
  if (!ready) return;
  say(1, `[etcd] Promoting a learner as a voting member: ${hex}`);
  await poll<true>(async (window) => {
    try {
      // An earlier attempt may have promoted it even if its answer was lost.
      const m = (await client.listMembers(window.limits())).find((x) => x.id === id);
      if (m && !m.isLearner) {
        say(
          1,
          `[etcd] Member ${hex} is already a voting member, treating promotion as successful`,
        );
        return { done: true, value: true };
      }
      await client.promoteMember(id, window.limits());
      say(1, `[etcd] The learner was promoted as a voting member: ${hex}`);
      return { done: true, value: true };
    } catch (e) {
      say(5, `[etcd] Promoting the learner ${hex} failed: ${errorMessage(e)}`);
      // "can only promote a learner member which is in sync with leader": retry.
      return { done: false, error: e };
    }
  }, t).catch((e) => {
    throw new KubeadmError(`error promoting the etcd learner ${hex}: ${errorMessage(e)}`, {
      cause: e,
    });
  });
}

/** One endpoint's status, retried until it answers or `t`'s timeout. */
function statusRetried(client: EtcdClient, endpoint: string, t: EtcdTiming): Promise<true> {
  return poll<true>(async (window) => {
    try {
      await client.status(endpoint, window.limits());
      return { done: true, value: true };
    } catch (e) {
      return { done: false, error: e };
    }
  }, t);
}

/**
 * The status of every endpoint, each retried until the etcd API timeout: whether a majority
 * answered healthily (upstream `getClusterStatus`, v1.35+), and the unhealthy ones' errors.
 */
async function clusterStatus(
  client: EtcdClient,
  t: EtcdTiming,
): Promise<{ quorum: boolean; errors: string[] }> {
  const errors: string[] = [];
  for (const ep of client.endpoints) {
    await statusRetried(client, ep, t).catch((e) => {
      errors.push(`the status of member ${ep} is not available: ${errorMessage(e)}`);
    });
  }
  const total = client.endpoints.length;
  return { quorum: total - errors.length > Math.floor(total / 2), errors };
}

/** Kubernetes' `errors.NewAggregate` text. */
function aggregate(errors: readonly string[]): string {
  return errors.length === 1 ? errors[0] : `[${errors.join(", ")}]`;
}

/** Upstream's `-v=1` line when some members did not answer. */
function logUnhealthy(log: LogFn | undefined, quorum: boolean, errors: readonly string[]): void {
  if (errors.length === 0) return;
  log?.(
    1,
    LOG_SOURCE,
    `[etcd] cluster has quorum: ${quorum}; some members are not healthy: ${aggregate(errors)}`,
  );
}

/**
 * A quorum of the endpoints answers a status request (upstream `CheckClusterHealth`, v1.35+:
 * a majority suffices; the others are only logged at `-v=1`).
 */
export async function checkClusterHealth(
  client: EtcdClient,
  t: EtcdTiming,
  log?: LogFn,
): Promise<void> {
  const { quorum, errors } = await clusterStatus(client, t);
  logUnhealthy(log, quorum, errors);
  if (quorum) return;
  throw new KubeadmError(`etcd cluster is not healthy: ${aggregate(errors)}`);
}

/**
 * Retries up to {@link ETCD_HEALTHY_CHECK_RETRIES} times, {@link ETCD_HEALTHY_CHECK_INTERVAL_MS}
 * apart, until a quorum of the endpoints answers (upstream `WaitForClusterAvailable`). Each
 * attempt asks every endpoint once.
 */
export async function waitForClusterAvailable(
  client: EtcdClient,
  t: EtcdTiming,
  retries = ETCD_HEALTHY_CHECK_RETRIES,
  intervalMs = ETCD_HEALTHY_CHECK_INTERVAL_MS,
  log?: LogFn,
): Promise<void> {
  let last: string[] = [];
  for (let i = 0; i < retries; i++) {
    if (i > 0) {
      log?.(1, LOG_SOURCE, `[etcd] Waiting ${formatDuration(intervalMs)} until next retry`);
      await t.sleep(intervalMs);
    }
    log?.(
      2,
      LOG_SOURCE,
      `[etcd] attempting to see if all cluster endpoints ([${
        client.endpoints.join(" ")
      }]) are available ${i + 1}/${retries}`,
    );
    const failed: string[] = [];
    for (const ep of client.endpoints) {
      await client.status(ep).catch((e) =>
        failed.push(`the status of member ${ep} is not available: ${errorMessage(e)}`)
      );
    }
    const total = client.endpoints.length;
    const quorum = total - failed.length > Math.floor(total / 2);
    logUnhealthy(log, quorum, failed);
    if (quorum) return;
    last = failed;
  }
  throw new KubeadmError(
    `timeout waiting for etcd cluster to be available${
      last.length > 0 ? `: ${aggregate(last)}` : ""
    }`,
  );
}

/**
 * Refuses to take this node's member down (an upgrade restarts it) when the other voting
 * members could not keep quorum without it (beyond upstream, which only checks that a quorum
 * answers now, through the endpoints of the etcd Pods it finds — a stopped member's Pod is gone
 * with it). A cluster of three or more voters can lose one member: there every other voter's
 * status is asked once (a request's timeout each); with one of them down, restarting this one
 * would stop the cluster until it is back. Clusters of one or two voters lose quorum on any
 * restart, which the upgrade cannot avoid: they pass.
 */
export async function checkQuorumWithout(
  client: EtcdClient,
  peerURL: string,
  t: EtcdTiming,
  requestTimeoutMs: number,
): Promise<void> {
  const voters = (await listMembersRetried(client, t)).filter((m) => !m.isLearner);
  if (voters.length < 3) return;
  const quorum = Math.floor(voters.length / 2) + 1;
  const others = voters.filter((m) => m.peerURLs[0] !== peerURL);
  const down: string[] = [];
  for (const m of others) {
    const name = m.name || memberIdHex(m.id);
    const endpoint = m.clientURLs[0];
    try {
      if (!endpoint) throw new Error("not started");
      await client.status(endpoint, { timeoutMs: requestTimeoutMs });
    } catch (e) {
      down.push(`${name} (${endpoint ?? "no client URL"}): ${errorMessage(e)}`);
    }
  }
  if (others.length - down.length >= quorum) return;
  throw new KubeadmError(
    `restarting this etcd member would leave the etcd cluster without quorum (${quorum} of ${voters.length} voting members): ${down.length} of the other ${others.length} ${
      down.length === 1 ? "is" : "are"
    } not healthy: ${aggregate(down)}`,
    {
      hint: "bring the unhealthy members back (or remove the ones that are gone for good with " +
        "'etcdctl member remove'), then run the upgrade again",
    },
  );
}

/** Bound of {@link checkVotingMembersAnswer}: the member list and every voting member's status. */
export const VOTING_MEMBERS_CHECK_TIMEOUT_MS = 10_000;

/**
 * Refuses a member add that etcd would refuse (beyond upstream, which finds out only after
 * retrying the add for `timeouts.etcdAPICall`): etcd's strict reconfiguration check (on by
 * default) refuses to add any member, a learner too, while its leader is not connected to every
 * voting member ("etcdserver: unhealthy cluster"). Lists the members, then asks every voting
 * member's status on its first client URL, all at once; the whole check ends within one
 * deadline (`timeoutMs`), each request retried until then. `rerun` ends the hint: what to run
 * once the member is back.
 */
export async function checkVotingMembersAnswer(
  client: EtcdClient,
  t: Pick<EtcdTiming, "clock" | "sleep" | "intervalMs">,
  rerun: string,
  timeoutMs = VOTING_MEMBERS_CHECK_TIMEOUT_MS,
): Promise<void> {
  const deadline = t.clock.now().getTime() + timeoutMs;
  const until = () => ({ ...t, timeoutMs: Math.max(1, deadline - t.clock.now().getTime()) });
  const members = await listMembersRetried(client, until());
  const answers = await Promise.all(
    members.filter((m) => !m.isLearner).map(async (m) => {
      const member = `${m.name || memberIdHex(m.id)} (${m.clientURLs[0] ?? "no client URL"})`;
      const endpoint = m.clientURLs[0];
      if (!endpoint) return { member, error: "not started" };
      try {
        await statusRetried(client, endpoint, until());
        return undefined;
      } catch (e) {
        return { member, error: errorMessage(e) };
      }
    }),
  );
  const down = answers.filter((a) => a !== undefined);
  if (down.length === 0) return;
  const one = down.length === 1;
  const errors = one ? down[0].error : aggregate(down.map((d) => `${d.member}: ${d.error}`));
  throw new KubeadmError(
    `the etcd ${one ? "member" : "members"} ${down.map((d) => d.member).join(", ")} ${
      one ? "does" : "do"
    } not answer, and etcd refuses to add a member while a voting member is down: ${errors}`,
    {
      hint: `bring ${one ? "it" : "them"} back (or remove ${
        one ? "it" : "them"
      } with 'etcdctl member remove' if gone for good), then ${rerun}`,
    },
  );
}
