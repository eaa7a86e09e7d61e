/**
 * The etcd cluster operations a joining control-plane node needs, as a port: list members,
 * add one (as a learner), promote it, and ask an endpoint for its status. A runtime implements
 * it over etcd's v3 API (the Deno CLI uses the HTTP/JSON gateway with client certificates);
 * tests use a fake.
 *
 * Member IDs are uint64 values carried as decimal strings, as the gateway's JSON does.
 *
 * @module
 */

/** One member as etcd reports it. */
export interface EtcdMemberInfo {
  /** uint64 as a decimal string. */
  id: string;
  /** Empty until the member has started (etcd only learns the name then). */
  name: string;
  peerURLs: string[];
  clientURLs: string[];
  isLearner: boolean;
}

/** An error etcd answered with (gRPC status code and message), or a transport failure. */
export class EtcdRequestError extends Error {
  /** gRPC status code (`9` FailedPrecondition, `14` Unavailable, ...), when etcd answered. */
  readonly grpcCode?: number;
  /** True when no endpoint could be reached at all. */
  readonly unreachable: boolean;

  constructor(message: string, options: { grpcCode?: number; unreachable?: boolean } = {}) {
    // `name` stays "Error" (String(e) is "Error: <message>", as for any other failure);
    // `instanceof EtcdRequestError` tells these apart.
    super(message);
    this.grpcCode = options.grpcCode;
    this.unreachable = options.unreachable ?? false;
  }
}

/** A client bound to a list of endpoints (tried in order). */
export interface EtcdJoinClient {
  /** The client URLs this client talks to. */
  readonly endpoints: readonly string[];
  /** `MemberList`. */
  listMembers(): Promise<EtcdMemberInfo[]>;
  /** `MemberAdd` (as a learner when asked); returns the added member and the new list. */
  addMember(
    peerURLs: readonly string[],
    isLearner: boolean,
  ): Promise<{ member: EtcdMemberInfo; members: EtcdMemberInfo[] }>;
  /** `MemberPromote`; returns the new member list. */
  promoteMember(id: string): Promise<EtcdMemberInfo[]>;
  /** `Status` of one endpoint; rejects when it does not answer healthily. */
  status(endpoint: string): Promise<void>;
}

/** Creates a client for a set of endpoints. */
export type EtcdJoinConnect = (endpoints: readonly string[]) => EtcdJoinClient;
