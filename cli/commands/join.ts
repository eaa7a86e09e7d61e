/**
 * `kubeadm join [api-server-endpoint]` and `kubeadm join phase …`, generated from the core's
 * join workflow, with upstream's flags (each phase command gets the flags its phase declares).
 *
 * @module
 */
import type { Command } from "commander";
import type { JoinData, JoinPorts } from "../../core/phases/join/data.ts";
import { JOIN_OUTLINE } from "../phase_outlines.ts";
import type { FlagName } from "../flags.ts";
import {
  type CommandDeps,
  registerWorkflowCommand,
  type WorkflowCommand,
} from "../workflow_command.ts";

const JOIN_LONG = `When joining a kubeadm initialized cluster, we need to establish
bidirectional trust. This is split into discovery (having the Node
trust the Kubernetes Control Plane) and TLS bootstrap (having the
Kubernetes Control Plane trust the Node).

There are 2 main schemes for discovery. The first is to use a shared
token along with the IP address of the API server. The second is to
provide a file - a subset of the standard kubeconfig file. This file can
be a local file or downloaded via an HTTPS URL. The forms are
kubeadm join --discovery-token abcdef.1234567890abcdef 1.2.3.4:6443,
kubeadm join --discovery-file path/to/file.conf, or kubeadm join
--discovery-file https://url/file.conf. Only one form can be used. If
the discovery information is loaded from a URL, HTTPS must be used.
Also, in that case the host installed CA bundle is used to verify
the connection.

If you use a shared token for discovery, you should also pass the
--discovery-token-ca-cert-hash flag to validate the public key of the
root certificate authority (CA) presented by the Kubernetes Control Plane.
The value of this flag is specified as "<hash-type>:<hex-encoded-value>",
where the supported hash type is "sha256". The hash is calculated over
the bytes of the Subject Public Key Info (SPKI) object (as in RFC7469).
This value is available in the output of "kubeadm init" or can be
calculated using standard tools. The --discovery-token-ca-cert-hash flag
may be repeated multiple times to allow more than one public key.

If you cannot know the CA public key hash ahead of time, you can pass
the --discovery-token-unsafe-skip-ca-verification flag to disable this
verification. This weakens the kubeadm security model since other nodes
can potentially impersonate the Kubernetes Control Plane.

The TLS bootstrap mechanism is also driven via a shared token. This is
used to temporarily authenticate with the Kubernetes Control Plane to submit a
certificate signing request (CSR) for a locally created key pair. By
default, kubeadm will set up the Kubernetes Control Plane to automatically
approve these signing requests. This token is passed in with the
--tls-bootstrap-token abcdef.1234567890abcdef flag.

Often times the same token is used for both parts. In this case, the
--token flag can be used instead of specifying each token individually.`;

/** What a test can hand to {@link registerJoin} instead of this machine and network. */
export interface JoinCommandDeps extends CommandDeps {
  /** Replaces some of the join phases' network ports (e.g. discovery transports). */
  ports?: Partial<JoinPorts>;
}

/** The flags of `kubeadm join`, in upstream's (alphabetical) help order. */
const JOIN_FLAGS: readonly FlagName[] = [
  "apiserver-advertise-address",
  "apiserver-bind-port",
  "certificate-auto-renewal",
  "certificate-key",
  "config",
  "control-plane",
  "cri-socket",
  "discovery-file",
  "discovery-token",
  "discovery-token-ca-cert-hash",
  "discovery-token-unsafe-skip-ca-verification",
  "dry-run",
  "ignore-preflight-errors",
  "node-name",
  "patches",
  "skip-phases",
  "tls-bootstrap-token",
  "token",
];

/** `kubeadm join`. */
export function joinCommand(deps: JoinCommandDeps = {}): WorkflowCommand<JoinData> {
  return {
    name: "join",
    summary: "Run this on any machine you wish to join an existing cluster",
    description: JOIN_LONG,
    argument: "[api-server-endpoint]",
    flags: JOIN_FLAGS,
    workflow: () => JOIN_OUTLINE,
    prepare: async (invocation, common) =>
      (await import("../join_runtime.ts")).prepareJoin(invocation, { ...common, ...deps }),
  };
}

/** Registers `join [api-server-endpoint]` and its generated `join phase …` tree. */
export function registerJoin(program: Command, deps: JoinCommandDeps = {}): void {
  registerWorkflowCommand(program, joinCommand(deps), deps);
}
