/**
 * Removing this node's member from a stacked etcd cluster (upstream's
 * `RemoveStackedEtcdMemberFromCluster`): list the members; when this is the last member and
 * the client talks to it, nothing is removed; a member that is already gone is not an error.
 *
 * @module
 */
import { ETCD_CLIENT_PORT, ETCD_PEER_PORT } from "../constants.ts";
import type { LocalEtcdManifest } from "../manifests/etcd_manifest.ts";
import { type EtcdClient, EtcdMemberNotFound } from "../ports/etcd.ts";
import type { LogFn } from "../ports/printer.ts";
import { memberListText } from "./member_join.ts";

/** What happened to this node's member. */
export type MemberRemoval = "removed" | "last-member" | "not-a-member";

/**
 * Client endpoints derived from the local manifest: this member's advertised client URLs, then
 * those of the peers in `--initial-cluster` (peer URL with the client port), de-duplicated.
 */
export function endpointsFromManifest(m: LocalEtcdManifest): string[] {
  const out = new Set(m.advertiseClientURLs);
  for (const peer of m.initialCluster) {
    try {
      const u = new URL(peer.peerURL);
      if (u.port === String(ETCD_PEER_PORT)) {
        u.port = String(ETCD_CLIENT_PORT);
        out.add(u.toString().replace(/\/$/, ""));
      }
    } catch {
      // not a URL: ignore
    }
  }
  return [...out];
}

/**
 * Removes the member whose peer URLs include `peerURL`. `clientURL` is this member's client
 * URL: when it is the only member left and the client talks to it, it is kept. The removal is
 * sent to the other members when they advertise client URLs (a member that removes itself
 * may stop before answering), and a lost answer is checked against a fresh member list.
 */
export async function removeEtcdMember(
  connect: (endpoints: readonly string[]) => EtcdClient,
  endpoints: readonly string[],
  peerURL: string,
  clientURL: string,
  log?: LogFn,
): Promise<MemberRemoval> {
  const say = (level: number, m: string) => log?.(level, "member_remove.ts", m);
  say(1, "[etcd] creating etcd client that connects to etcd pods");
  const client = connect(endpoints);
  const members = await client.listMembers();
  if (members.length === 1 && client.endpoints.includes(clientURL)) {
    say(1, "[etcd] This is the only remaining etcd member in the etcd cluster, skip removing it");
    return "last-member";
  }
  say(2, `[etcd] get the member id from peer: ${peerURL}`);
  const me = members.find((m) => m.peerURLs.includes(peerURL));
  if (!me) {
    say(5, `[etcd] member was already removed, because no member id exists for peer ${peerURL}`);
    return "not-a-member";
  }
  const others = members.filter((m) => m !== me).flatMap((m) => m.clientURLs);
  const remover = others.length > 0 ? connect(others) : client;
  say(1, `[etcd] removing etcd member: ${peerURL}, id: ${me.id}`);
  try {
    const left = await remover.removeMember(me.id);
    say(
      1,
      `[etcd] Updated etcd member list: ${
        memberListText(left.map((m) => ({ name: m.name, peerURL: m.peerURLs[0] ?? "" })))
      }`,
    );
  } catch (e) {
    if (e instanceof EtcdMemberNotFound) return "not-a-member";
    if (others.length > 0) {
      const after = await remover.listMembers().catch(() => undefined);
      if (after && !after.some((m) => m.id === me.id)) return "removed";
    }
    throw e;
  }
  return "removed";
}
