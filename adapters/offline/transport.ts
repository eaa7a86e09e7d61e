/**
 * Dry-run for API calls: a {@link Transport} that records what would be sent instead of
 * sending it, prints upstream's `[dryrun] Would perform action CREATE on resource "configmaps" in
 * API group "core/v1"` lines with the attached object (Secret values redacted, unlike
 * upstream),
 * and answers like an empty API server that accepts every write.
 *
 * Writes are kept in memory, so a later GET of an object "created" earlier in the same run
 * returns it (upload-certs reads back the token Secret it just created). A GET of a Node that
 * was never written answers with a synthesized Node carrying the `kubernetes.io/hostname`
 * label, so node patching (mark-control-plane, CRI-socket annotation) proceeds as upstream's
 * dry-run client does. Other unknown objects are 404 NotFound.
 *
 * @module
 */
import type { Status } from "kubernetes-types/meta/v1.d.ts";
import { KUBEADM_MINOR, KUBERNETES_VERSION } from "../../core/versions.ts";
import type { Printer } from "../../core/ports/printer.ts";
import { toKubeYaml } from "../../core/yaml/kube_yaml.ts";
import type { KubeObject } from "../../core/kube/client.ts";
import { applyMergePatch } from "../../core/patches/merge_patch.ts";
import {
  describeObject,
  parseResourcePath,
  resourceFor,
  type ResourceInfo,
} from "../../core/kube/resources.ts";
import type { Exchange, Transport, TransportLimits } from "../../core/ports/transport.ts";

/** One recorded call. */
export interface DryRunAction {
  /** API resource (`configmaps`) and group/version as upstream names it (`core/v1`). */
  resource?: { plural: string; groupVersion: string };
  verb: "get" | "list" | "create" | "update" | "patch" | "delete";
  kind: string;
  namespace?: string;
  name?: string;
  /** The object sent (create, update). */
  object?: KubeObject;
  /** The patch sent (patch). */
  patch?: unknown;
}

/** Options of {@link createDryRunTransport}. */
export interface DryRunOptions {
  /** Where `[dryrun] Would ...` lines go; omit to stay silent. */
  out?: Printer;
  /** Objects the simulated server already has. */
  objects?: KubeObject[];
  /** Answer GETs of unknown Nodes with a synthesized Node (default true). */
  synthesizeNodes?: boolean;
  /**
   * A real cluster GETs and LISTs are read from first, as upstream's dry-run client does when a
   * kubeconfig exists (`upgrade --dry-run`): what it returns is printed and returned; what it
   * does not have is looked up among this run's writes. Writes never reach it.
   */
  backing?: Transport;
  /** Answers a GET before anything else (upstream's reactors, e.g. the health-check Job). */
  respond?: (action: DryRunAction) => KubeObject | undefined;
  /** The `/version` answer (default: this kubeadm's version). */
  serverVersion?: { major: string; minor: string; gitVersion: string };
}

/** A recording dry-run transport. */
export interface DryRunTransport {
  transport: Transport;
  /** Every call, in order. */
  actions: DryRunAction[];
}

/** An answer of the recorder: a status and the body text. */
interface Answer {
  status: number;
  body: string;
}

function json(status: number, body: unknown): Answer {
  return { status, body: JSON.stringify(body) };
}

function notFound(info: ResourceInfo, name: string): Answer {
  const status: Status = {
    apiVersion: "v1",
    kind: "Status",
    status: "Failure",
    message: `${info.plural} "${name}" not found`,
    reason: "NotFound",
    details: { name, kind: info.plural },
    code: 404,
  };
  return json(404, status);
}

function matchesLabels(obj: KubeObject, selector: string | null): boolean {
  if (!selector) return true;
  const labels = obj.metadata?.labels ?? {};
  return selector.split(",").every((term) => {
    const [k, v] = term.split("=");
    return labels[k.trim()] === v?.trim();
  });
}

/**
 * A field selector of `path=value` terms (`spec.nodeName=cp1`, `spec.unschedulable=false`): an
 * absent field is the zero value, as the API server compares it (`""`, `false`).
 */
function matchesFields(obj: KubeObject, selector: string | null): boolean {
  if (!selector) return true;
  return selector.split(",").every((term) => {
    const [path, want = ""] = term.split("=").map((p) => p.trim());
    let v: unknown = obj;
    for (const key of path.split(".")) v = (v as Record<string, unknown> | undefined)?.[key];
    return String(v ?? (want === "false" ? false : "")) === want;
  });
}

/** What a Secret value is printed as. */
export const REDACTED_VALUE = "<redacted>";

/**
 * A Secret (or a patch of one) as dry-run prints it: every value of `data` and `stringData`
 * (and of JSON-patch operations on them) replaced by {@link REDACTED_VALUE}, keys kept.
 * Upstream prints Secrets whole (the bootstrap token's secret, the encrypted certificates and
 * keys of kubeadm-certs); kubeadm-ts never prints a secret value.
 */
export function redactSecretValues(value: unknown): unknown {
  const redactMap = (m: unknown) =>
    m && typeof m === "object" && !Array.isArray(m)
      ? Object.fromEntries(Object.keys(m).map((k) => [k, REDACTED_VALUE]))
      : m === undefined || m === null
      ? m
      : REDACTED_VALUE;
  if (Array.isArray(value)) {
    // JSON patch: operations on /data or /stringData (or below) carry secret values.
    return value.map((op) =>
      op && typeof op === "object" && "value" in op &&
        /^\/(data|stringData)(\/|$)/.test(String((op as { path?: unknown }).path ?? ""))
        ? { ...op, value: String(op.path).includes("/", 1) ? REDACTED_VALUE : redactMap(op.value) }
        : op
    );
  }
  if (!value || typeof value !== "object") return value;
  const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const field of ["data", "stringData"]) {
    if (field in out) out[field] = redactMap(out[field]);
  }
  return out;
}

/** Upstream's `LogObject`: the object as YAML after `[dryrun] Attached object:`, then a blank line. */
function printAttached(out: Printer, obj: unknown): void {
  out.info("[dryrun] Attached object:");
  out.info(toKubeYaml(obj).replace(/\n$/, ""));
  out.info("");
}

/** Builds a dry-run transport; see the module documentation. */
export function createDryRunTransport(options: DryRunOptions = {}): DryRunTransport {
  const actions: DryRunAction[] = [];
  const store = new Map<string, KubeObject>();
  let counter = 0;
  const keyOf = (info: ResourceInfo, ns: string | undefined, name: string) =>
    `${info.apiVersion}|${info.plural}|${ns ?? ""}|${name}`;
  const remember = (info: ResourceInfo, obj: KubeObject): KubeObject => {
    counter++;
    const stored: KubeObject = {
      ...obj,
      apiVersion: obj.apiVersion ?? info.apiVersion,
      kind: obj.kind ?? info.kind,
      metadata: {
        ...obj.metadata,
        uid: obj.metadata?.uid ?? `00000000-0000-4000-8000-${String(counter).padStart(12, "0")}`,
        resourceVersion: String(counter),
      },
    };
    store.set(keyOf(info, obj.metadata?.namespace, obj.metadata?.name ?? ""), stored);
    return stored;
  };
  for (const obj of options.objects ?? []) {
    remember(resourceFor(obj.kind ?? "", obj.apiVersion), obj);
  }
  // Upstream's dry-run client prints every action, then the object it carries, in this form.
  const say = (a: DryRunAction) => {
    const out = options.out;
    if (!out) return;
    const what = a.resource
      ? `resource ${JSON.stringify(a.resource.plural)} in API group ${
        JSON.stringify(a.resource.groupVersion)
      }`
      : describeObject(a.kind, a.namespace, a.name);
    out.info(`[dryrun] Would perform action ${a.verb.toUpperCase()} on ${what}`);
    // Only client-go's get, patch and delete actions carry a name (GetName).
    if (a.verb === "get" || a.verb === "patch" || a.verb === "delete") {
      out.info(
        `[dryrun] Resource name ${JSON.stringify(a.name ?? "")}, namespace ${
          JSON.stringify(a.namespace ?? "")
        }`,
      );
    }
    const attached = a.object ?? a.patch;
    if (attached !== undefined && a.verb !== "get" && a.verb !== "list") {
      printAttached(out, a.kind === "Secret" ? redactSecretValues(attached) : attached);
    }
  };
  const resourceOf = (info: ResourceInfo) => ({
    plural: info.plural,
    groupVersion: info.apiVersion.includes("/") ? info.apiVersion : `core/${info.apiVersion}`,
  });

  const attach = (obj: unknown) => {
    if (options.out) printAttached(options.out, obj);
  };
  /** The real cluster's answer to a read, printed; `undefined` when it has none. */
  const fromBacking = async (
    url: string,
    limits: TransportLimits | undefined,
  ): Promise<Answer | undefined> => {
    if (!options.backing) return undefined;
    try {
      const res = await options.backing(
        new Request(url, { headers: { accept: "application/json" } }),
        limits,
      );
      const text = await res.text();
      if (res.ok) {
        attach(JSON.parse(text));
        return { status: 200, body: text };
      }
    } catch {
      // as a missing object
    }
    options.out?.info(
      "[dryrun] Real object does not exist. Attempting to GET from followup reactors or from the fake client tracker",
    );
    return undefined;
  };
  const exchange: Exchange = async (method, requestUrl, bodyText, limits) => {
    const url = new URL(requestUrl);
    const body = method !== "GET" && bodyText ? JSON.parse(bodyText) : undefined;
    const parsed = parseResourcePath(url.pathname);
    if (!parsed) {
      if (url.pathname === "/version") {
        if (options.serverVersion) return json(200, options.serverVersion);
        if (options.backing) {
          const res = await options.backing(new Request(requestUrl), limits);
          return { status: res.status, body: await res.text() };
        }
        return json(200, {
          major: "1",
          minor: String(KUBEADM_MINOR),
          gitVersion: KUBERNETES_VERSION,
        });
      }
      return { status: 200, body: "ok" };
    }
    const { info, namespace } = parsed;
    const name = parsed.name ?? body?.metadata?.name;
    const key = keyOf(info, namespace, name ?? "");
    switch (method) {
      case "GET": {
        if (parsed.name === undefined) {
          const list: DryRunAction = {
            verb: "list",
            kind: info.kind,
            namespace,
            resource: resourceOf(info),
          };
          actions.push(list);
          say(list);
          const real = await fromBacking(requestUrl, limits);
          if (real) return real;
          const items = [...store.values()].filter((o) =>
            o.kind === info.kind && (!info.namespaced || o.metadata?.namespace === namespace) &&
            matchesLabels(o, url.searchParams.get("labelSelector")) &&
            matchesFields(o, url.searchParams.get("fieldSelector"))
          );
          return json(200, { kind: `${info.kind}List`, apiVersion: info.apiVersion, items });
        }
        const get: DryRunAction = {
          verb: "get",
          kind: info.kind,
          namespace,
          name,
          resource: resourceOf(info),
        };
        actions.push(get);
        say(get);
        const answer = options.respond?.(get);
        if (answer) {
          attach(answer);
          return json(200, answer);
        }
        const real = await fromBacking(requestUrl, limits);
        if (real) return real;
        const found = store.get(key);
        if (found) return json(200, found);
        if (info.kind === "Node" && options.synthesizeNodes !== false) {
          return json(200, {
            apiVersion: "v1",
            kind: "Node",
            metadata: { name, labels: { "kubernetes.io/hostname": name } },
          });
        }
        return notFound(info, name ?? "");
      }
      case "POST":
      case "PUT": {
        const verb = method === "POST" ? "create" : "update";
        const action: DryRunAction = {
          verb,
          kind: info.kind,
          namespace,
          name,
          object: body,
          resource: resourceOf(info),
        };
        actions.push(action);
        say(action);
        return json(method === "POST" ? 201 : 200, remember(info, body));
      }
      case "PATCH": {
        const action: DryRunAction = {
          verb: "patch",
          kind: info.kind,
          namespace,
          name,
          patch: body,
          resource: resourceOf(info),
        };
        actions.push(action);
        say(action);
        const base = store.get(key) ??
          { apiVersion: info.apiVersion, kind: info.kind, metadata: { name, namespace } };
        const patched = Array.isArray(body) ? base : applyMergePatch<KubeObject>(base, body);
        return json(200, remember(info, patched));
      }
      case "DELETE": {
        const action: DryRunAction = {
          verb: "delete",
          kind: info.kind,
          namespace,
          name,
          resource: resourceOf(info),
        };
        actions.push(action);
        say(action);
        store.delete(key);
        return json(200, { apiVersion: "v1", kind: "Status", status: "Success" });
      }
    }
    return json(405, { kind: "Status", code: 405, reason: "MethodNotAllowed" });
  };
  // As HTTP for any caller; the client takes the exchange itself and skips the messages.
  const transport: Transport = Object.assign(async (request: Request, limits?: TransportLimits) => {
    const answer = await exchange(
      request.method,
      request.url,
      request.method === "GET" ? undefined : await request.text(),
      limits,
    );
    return new Response(answer.body, {
      status: answer.status,
      headers: { "Content-Type": "application/json" },
    });
  }, { exchange });
  return { transport, actions };
}
