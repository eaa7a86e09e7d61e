/**
 * CRI endpoints: `unix:///run/containerd/containerd.sock`, or a bare socket path (the deprecated
 * form upstream's CRI client still accepts).
 *
 * @module
 */

/** The socket path of a `unix://` (or bare path) CRI endpoint; throws for other schemes. */
export function criSocketPath(endpoint: string): string {
  if (endpoint.startsWith("/")) return endpoint;
  const m = /^([a-z][a-z0-9+.-]*):\/\/(.*)$/i.exec(endpoint);
  if (!m) throw new Error(`invalid CRI endpoint ${JSON.stringify(endpoint)}`);
  const scheme = m[1].toLowerCase();
  if (scheme === "tcp") throw new Error("only support unix socket endpoint");
  if (scheme !== "unix") throw new Error(`protocol ${JSON.stringify(m[1])} not supported`);
  if (!m[2].startsWith("/")) {
    throw new Error(
      `invalid CRI endpoint ${JSON.stringify(endpoint)}: the socket path must be absolute`,
    );
  }
  return m[2];
}
