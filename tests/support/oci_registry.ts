/**
 * A minimal OCI distribution registry for pull tests: serves images from OCI archives (the
 * ones `scripts/node-images` builds) over plain HTTP, read-only — `GET /v2/`, manifests by tag
 * or digest, blobs by digest. Every tag of a repository it knows is served from that
 * repository's archive, so a test can pull whatever tags the target version names. It records
 * the manifest requests.
 *
 * @module
 */

/** Where one file of a tar archive lies. */
interface TarEntry {
  offset: number;
  size: number;
}

/** Indexes a (ustar) tar file: path → data offset and size. */
async function indexTar(path: string): Promise<Map<string, TarEntry>> {
  const entries = new Map<string, TarEntry>();
  const file = await Deno.open(path);
  try {
    const header = new Uint8Array(512);
    let offset = 0;
    while (true) {
      await file.seek(offset, Deno.SeekMode.Start);
      let read = 0;
      while (read < 512) {
        const n = await file.read(header.subarray(read));
        if (n === null) return entries;
        read += n;
      }
      if (header.every((b) => b === 0)) return entries;
      const text = (from: number, len: number) =>
        new TextDecoder().decode(header.subarray(from, from + len)).replace(/\0.*$/s, "");
      const prefix = text(345, 155);
      const name = (prefix ? `${prefix}/` : "") + text(0, 100);
      const size = parseInt(text(124, 12).trim() || "0", 8);
      entries.set(name.replace(/^\.\//, ""), { offset: offset + 512, size });
      offset += 512 + Math.ceil(size / 512) * 512;
    }
  } finally {
    file.close();
  }
}

async function readEntry(path: string, e: TarEntry): Promise<Uint8Array<ArrayBuffer>> {
  const file = await Deno.open(path);
  try {
    await file.seek(e.offset, Deno.SeekMode.Start);
    const out = new Uint8Array(e.size);
    let read = 0;
    while (read < e.size) {
      const n = await file.read(out.subarray(read));
      if (n === null) throw new Error(`${path}: truncated entry`);
      read += n;
    }
    return out;
  } finally {
    file.close();
  }
}

/** One image archive, indexed. */
interface Archive {
  path: string;
  entries: Map<string, TarEntry>;
  /** The manifest the archive's index.json names. */
  manifest: { digest: string; mediaType: string };
}

async function openArchive(path: string): Promise<Archive> {
  const entries = await indexTar(path);
  const index = entries.get("index.json");
  if (!index) throw new Error(`${path}: no index.json (not an OCI archive)`);
  const doc = JSON.parse(new TextDecoder().decode(await readEntry(path, index)));
  const m = doc.manifests?.[0];
  if (!m?.digest) throw new Error(`${path}: index.json names no manifest`);
  return { path, entries, manifest: { digest: m.digest, mediaType: m.mediaType } };
}

/** A running registry. */
export interface OciRegistry {
  /** `host:port` to put in front of repository names. */
  host: string;
  /** Manifest requests, as `<repository>:<reference>`, in order. */
  readonly manifestRequests: string[];
  close(): Promise<void>;
}

/**
 * Serves `repositories` (name → OCI archive path) on `hostname` (an address the puller can
 * reach), on a free port.
 */
export async function startOciRegistry(
  hostname: string,
  repositories: ReadonlyMap<string, string>,
): Promise<OciRegistry> {
  const archives = new Map<string, Archive>();
  for (const [repo, path] of repositories) archives.set(repo, await openArchive(path));
  const manifestRequests: string[] = [];
  const blob = (digest: string): { archive: Archive; entry: TarEntry } | undefined => {
    const name = `blobs/${digest.replace(":", "/")}`;
    for (const archive of archives.values()) {
      const entry = archive.entries.get(name);
      if (entry) return { archive, entry };
    }
    return undefined;
  };
  const server = Deno.serve({ hostname, port: 0, onListen: () => {} }, async (req) => {
    const url = new URL(req.url);
    if (url.pathname === "/v2/" || url.pathname === "/v2") return new Response("{}");
    const m = /^\/v2\/(.+)\/(manifests|blobs)\/([^/]+)$/.exec(url.pathname);
    if (!m || (req.method !== "GET" && req.method !== "HEAD")) {
      return new Response("not found", { status: 404 });
    }
    const [, repo, kind, reference] = m;
    const archive = archives.get(repo);
    if (!archive) {
      return Response.json({ errors: [{ code: "NAME_UNKNOWN", message: repo }] }, {
        status: 404,
      });
    }
    let digest = reference;
    let type = "application/octet-stream";
    if (kind === "manifests") {
      manifestRequests.push(`${repo}:${reference}`);
      if (!reference.startsWith("sha256:")) digest = archive.manifest.digest;
      if (digest === archive.manifest.digest) type = archive.manifest.mediaType;
    }
    const found = blob(digest);
    if (!found) return new Response("unknown blob", { status: 404 });
    const body = await readEntry(found.archive.path, found.entry);
    const headers = {
      "Content-Type": type,
      "Content-Length": String(body.length),
      "Docker-Content-Digest": digest,
    };
    return new Response(req.method === "HEAD" ? null : body, { headers });
  });
  const addr = server.addr as Deno.NetAddr;
  return {
    host: `${hostname}:${addr.port}`,
    manifestRequests,
    close: () => server.shutdown(),
  };
}

/**
 * containerd's `certs.d` configuration sending pulls for `registry` (`registry.k8s.io`) to a
 * plain-HTTP `mirror` (`host:port`): writes `<dir>/<registry>/hosts.toml`.
 */
export async function writeRegistryHosts(
  dir: string,
  registry: string,
  mirror: string,
): Promise<void> {
  await Deno.mkdir(`${dir}/${registry}`, { recursive: true });
  await Deno.writeTextFile(
    `${dir}/${registry}/hosts.toml`,
    `server = "http://${mirror}"\n\n[host."http://${mirror}"]\n  capabilities = ["pull", "resolve"]\n`,
  );
}
