/**
 * Throw-away TLS material made with the `openssl` CLI (a cluster CA, an API-server certificate
 * for 127.0.0.1/localhost, an admin client certificate, and an unrelated CA), plus a local
 * HTTPS server (Deno's `node:https`) that can require client certificates, for transport tests.
 *
 * @module
 */
import https from "node:https";
import type { IncomingMessage, ServerResponse } from "node:http";
import { openssl } from "./openssl.ts";

/** PEM material for one test run. */
export interface TlsFixtures {
  caCert: string;
  caKey: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
  otherCaCert: string;
}

/** Creates the fixtures in a temporary directory (requires `openssl`). */
export async function makeTlsFixtures(): Promise<TlsFixtures> {
  const dir = await Deno.makeTempDir({ prefix: "kubeadm-ts-tls-" });
  const p = (f: string) => `${dir}/${f}`;
  try {
    await Deno.writeTextFile(
      p("ext.cnf"),
      "[srv]\nsubjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n" +
        "[cli]\nextendedKeyUsage=clientAuth\n",
    );
    const ca = async (name: string, cn: string) =>
      await openssl([
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-days",
        "1",
        "-subj",
        `/CN=${cn}`,
        "-keyout",
        p(`${name}.key`),
        "-out",
        p(`${name}.crt`),
      ]);
    await ca("ca", "kubernetes");
    await ca("other", "other-ca");
    const leaf = async (name: string, subj: string, ext: string) => {
      await openssl([
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-subj",
        subj,
        "-keyout",
        p(`${name}.key`),
        "-out",
        p(`${name}.csr`),
      ]);
      await openssl([
        "x509",
        "-req",
        "-in",
        p(`${name}.csr`),
        "-CA",
        p("ca.crt"),
        "-CAkey",
        p("ca.key"),
        "-CAcreateserial",
        "-days",
        "1",
        "-out",
        p(`${name}.crt`),
        "-extfile",
        p("ext.cnf"),
        "-extensions",
        ext,
      ]);
    };
    await leaf("server", "/CN=kube-apiserver", "srv");
    await leaf("client", "/O=kubeadm:cluster-admins/CN=kubernetes-admin", "cli");
    const read = (f: string) => Deno.readTextFile(p(f));
    return {
      caCert: await read("ca.crt"),
      caKey: await read("ca.key"),
      serverCert: await read("server.crt"),
      serverKey: await read("server.key"),
      clientCert: await read("client.crt"),
      clientKey: await read("client.key"),
      otherCaCert: await read("other.crt"),
    };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** A running local HTTPS server. */
export interface TestHttpsServer {
  /** `https://127.0.0.1:<port>`. */
  url: string;
  close(): Promise<void>;
}

/** What the handler learns about the caller. */
export interface CallerInfo {
  /** CN of the verified client certificate, if any. */
  clientCN?: string;
  authorization?: string;
}

/** Starts `node:https` on 127.0.0.1 with the fixtures' server certificate. */
export async function startHttpsServer(
  tls: TlsFixtures,
  options: { requireClientCert: boolean },
  handler: (req: IncomingMessage, res: ServerResponse, caller: CallerInfo) => void,
): Promise<TestHttpsServer> {
  const server = https.createServer({
    cert: tls.serverCert,
    key: tls.serverKey,
    ca: tls.caCert,
    requestCert: options.requireClientCert,
    rejectUnauthorized: options.requireClientCert,
  }, (req, res) => {
    const socket = req.socket as unknown as {
      getPeerCertificate?: () => { subject?: { CN?: string } };
    };
    handler(req, res, {
      clientCN: socket.getPeerCertificate?.()?.subject?.CN,
      authorization: req.headers.authorization,
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const port = (server.address() as { port: number }).port;
  return {
    url: `https://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

/** A local port with nothing listening on it. */
export function closedPort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}
