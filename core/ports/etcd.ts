/**
 * The etcd cluster as a port: one client interface for every workflow (a control-plane join
 * adds and promotes its member; reset removes it). A runtime implements it over etcd's v3 API
 * (the Deno CLI uses the HTTP/JSON gateway with client certificates); tests use fakes.
 *
 * Member IDs are uint64 values carried as decimal strings, as the gateway's JSON does.
 *
 * @module
 */
import { KubeadmError, type KubeadmErrorOptions } from "../errors.ts";
import type { TransportLimits } from "./transport.ts";

/** One member as etcd reports it. */
export interface EtcdMember {
  /** uint64 as a decimal string. */
  id: string;
  /** Empty until the member has started (etcd only learns the name then). */
  name: string;
  peerURLs: string[];
  clientURLs: string[];
  /** A learner (non-voting) member; absent means voting. */
  isLearner?: boolean;
}

/**
 * A client bound to a list of endpoints (tried in order). Every call takes, last, limits of
 * its own (a poll's time left): the whole call, every endpoint it tries included, ends within
 * them.
 */
export interface EtcdClient {
  /** The client URLs this client talks to. */
  readonly endpoints: readonly string[];
  /** `MemberList`. */
  listMembers(limits?: TransportLimits): Promise<EtcdMember[]>;
  /** `MemberAdd` (as a learner when asked); returns the added member and the new list. */
  addMember(
    peerURLs: readonly string[],
    isLearner: boolean,
    limits?: TransportLimits,
  ): Promise<{ member: EtcdMember; members: EtcdMember[] }>;
  /** `MemberPromote`; returns the new member list. */
  promoteMember(id: string, limits?: TransportLimits): Promise<EtcdMember[]>;
  /** `MemberRemove`; resolves to the members left. Rejects with {@link EtcdMemberNotFound}. */
  removeMember(id: string, limits?: TransportLimits): Promise<EtcdMember[]>;
  /** `Status` of one endpoint; rejects when it does not answer healthily. */
  status(endpoint: string, limits?: TransportLimits): Promise<void>;
}

/** Options of an {@link EtcdRequestError}. */
export interface EtcdRequestErrorOptions extends KubeadmErrorOptions {
  /** gRPC status code (`9` FailedPrecondition, `14` Unavailable, ...), when etcd answered. */
  grpcCode?: number;
  /** True when no endpoint could be reached at all. */
  unreachable?: boolean;
}

/** An error etcd answered with (gRPC status code and message), or a transport failure. */
export class EtcdRequestError extends KubeadmError {
  override readonly code = "ERR_ETCD";
  /** gRPC status code, when etcd answered. */
  readonly grpcCode?: number;
  /** True when no endpoint could be reached at all. */
  readonly unreachable: boolean;

  constructor(message: string, options: EtcdRequestErrorOptions = {}) {
    super(message, options);
    // Reads as any other failure (`Error: <message>`); `instanceof` tells these apart.
    this.name = "Error";
    this.grpcCode = options.grpcCode;
    this.unreachable = options.unreachable ?? false;
  }
}

/** etcd answered that the member does not exist (already removed). */
export class EtcdMemberNotFound extends KubeadmError {
  override readonly code = "ERR_ETCD_MEMBER_NOT_FOUND";

  constructor(id: string) {
    super(`etcd member ${id} not found`);
  }
}
