/**
 * The CRI v1 (`runtime.v1`) protobuf messages kubeadm exchanges with a container runtime, written
 * by hand for the few calls it makes (version, status, runtime config, image status and pull,
 * Pod sandbox list/stop/remove, container list/stop). Field numbers follow `k8s.io/cri-api`
 * `pkg/apis/runtime/v1`.
 *
 * Decoding follows proto3 rules: unknown fields (and known fields with an unexpected wire type)
 * are skipped, repeated fields accumulate, a scalar seen twice keeps its last value and an
 * embedded message seen twice is merged.
 *
 * @module
 */
import { BinaryReader, BinaryWriter, WireType } from "@bufbuild/protobuf/wire";

/** `VersionResponse`. */
export interface VersionInfo {
  version: string;
  runtimeName: string;
  runtimeVersion: string;
  runtimeApiVersion: string;
}

/** `RuntimeCondition`: `RuntimeReady`, `NetworkReady`, or a runtime-specific one. */
export interface RuntimeCondition {
  type: string;
  status: boolean;
  reason: string;
  message: string;
}

/** `StatusResponse` (runtime handlers and features are not read). */
export interface RuntimeStatusInfo {
  conditions: RuntimeCondition[];
  /** Verbose information (`config`, `golang`, …: JSON strings), only with `verbose`. */
  info: Record<string, string>;
}

/** `CgroupDriver`. */
export type CgroupDriver = "systemd" | "cgroupfs";

/** `RuntimeConfigResponse`. */
export interface RuntimeConfigInfo {
  /** The Linux cgroup driver; `undefined` when the runtime sent no Linux configuration. */
  cgroupDriver?: CgroupDriver;
}

/** `Image` (the fields kubeadm reads). */
export interface ImageInfo {
  id: string;
  repoTags: string[];
  repoDigests: string[];
  size: bigint;
  pinned: boolean;
}

/** `PodSandboxState`. */
export type PodSandboxState = "SANDBOX_READY" | "SANDBOX_NOTREADY";

/** `PodSandbox`. */
export interface PodSandbox {
  id: string;
  metadata: { name: string; uid: string; namespace: string; attempt: number };
  state: PodSandboxState;
  /** Nanoseconds since the epoch. */
  createdAt: bigint;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  runtimeHandler: string;
}

/** `ContainerState`. */
export type ContainerState =
  | "CONTAINER_CREATED"
  | "CONTAINER_RUNNING"
  | "CONTAINER_EXITED"
  | "CONTAINER_UNKNOWN";

const CONTAINER_STATES: readonly ContainerState[] = [
  "CONTAINER_CREATED",
  "CONTAINER_RUNNING",
  "CONTAINER_EXITED",
  "CONTAINER_UNKNOWN",
];

/** `Container` (the fields kubeadm reads). */
export interface ContainerInfo {
  id: string;
  podSandboxId: string;
  metadata: { name: string; attempt: number };
  state: ContainerState;
  /** Nanoseconds since the epoch. */
  createdAt: bigint;
  labels: Record<string, string>;
}

/** A response that is not a valid encoding of the expected message. */
export class MessageDecodeError extends Error {
  constructor(what: string, cause: unknown) {
    super(`cannot decode ${what}: ${cause instanceof Error ? cause.message : String(cause)}`, {
      cause,
    });
    this.name = "MessageDecodeError";
  }
}

// ---------------------------------------------------------------------------------------------
// Encoding

function writeString(w: BinaryWriter, field: number, value: string): void {
  if (value !== "") w.tag(field, WireType.LengthDelimited).string(value);
}

function writeBool(w: BinaryWriter, field: number, value: boolean): void {
  if (value) w.tag(field, WireType.Varint).bool(true);
}

function writeMessage(w: BinaryWriter, field: number, body: (w: BinaryWriter) => void): void {
  w.tag(field, WireType.LengthDelimited).fork();
  body(w);
  w.join();
}

function encode(body: (w: BinaryWriter) => void): Uint8Array {
  const w = new BinaryWriter();
  body(w);
  return w.finish();
}

/** `VersionRequest{version}`: the CRI API version the client speaks. */
export function encodeVersionRequest(apiVersion: string): Uint8Array {
  return encode((w) => writeString(w, 1, apiVersion));
}

/** `StatusRequest{verbose}`. */
export function encodeStatusRequest(verbose: boolean): Uint8Array {
  return encode((w) => writeBool(w, 1, verbose));
}

/** `RuntimeConfigRequest{}`. */
export function encodeRuntimeConfigRequest(): Uint8Array {
  return new Uint8Array(0);
}

/** `ImageStatusRequest{image: ImageSpec{image}, verbose}`. */
export function encodeImageStatusRequest(image: string, verbose: boolean): Uint8Array {
  return encode((w) => {
    writeMessage(w, 1, (s) => writeString(s, 1, image));
    writeBool(w, 2, verbose);
  });
}

/** `PullImageRequest{image: ImageSpec{image}}` (no credentials, no sandbox config). */
export function encodePullImageRequest(image: string): Uint8Array {
  return encode((w) => writeMessage(w, 1, (s) => writeString(s, 1, image)));
}

/** `ListPodSandboxRequest{}`: every sandbox, unfiltered (as upstream kubeadm lists them). */
export function encodeListPodSandboxRequest(): Uint8Array {
  return new Uint8Array(0);
}

/** `StopPodSandboxRequest{pod_sandbox_id}` and `RemovePodSandboxRequest{pod_sandbox_id}`. */
export function encodePodSandboxIdRequest(id: string): Uint8Array {
  return encode((w) => writeString(w, 1, id));
}

/**
 * `ListContainersRequest{filter: ContainerFilter{label_selector}}`: the containers carrying every
 * label (map entries in key order, as Go's deterministic encoding writes them).
 */
export function encodeListContainersRequest(labels: Record<string, string>): Uint8Array {
  return encode((w) =>
    writeMessage(w, 1, (f) => {
      for (const [key, value] of Object.entries(labels).sort(([a], [b]) => a < b ? -1 : 1)) {
        writeMessage(f, 4, (e) => {
          writeString(e, 1, key);
          writeString(e, 2, value);
        });
      }
    })
  );
}

/** `StopContainerRequest{container_id, timeout}` (seconds before the runtime kills it). */
export function encodeStopContainerRequest(id: string, timeoutSeconds: number): Uint8Array {
  return encode((w) => {
    writeString(w, 1, id);
    if (timeoutSeconds !== 0) w.tag(2, WireType.Varint).int64(timeoutSeconds);
  });
}

// ---------------------------------------------------------------------------------------------
// Decoding

type FieldReader = (r: BinaryReader) => void;
type Fields = Record<number, [WireType, FieldReader]>;

/** Reads every field of one message, dispatching the known ones. */
function readFields(bytes: Uint8Array, fields: Fields): void {
  const r = new BinaryReader(bytes);
  while (r.pos < r.len) {
    const [no, wireType] = r.tag();
    const known = fields[no];
    if (known !== undefined && known[0] === wireType) known[1](r);
    else r.skip(wireType, no);
  }
}

function decoding<T>(what: string, bytes: Uint8Array, decode: (b: Uint8Array) => T): T {
  try {
    return decode(bytes);
  } catch (e) {
    throw new MessageDecodeError(what, e);
  }
}

const LEN = WireType.LengthDelimited;
const VARINT = WireType.Varint;

function readMapEntry(into: Record<string, string>): FieldReader {
  return (r) => {
    let key = "";
    let value = "";
    readFields(r.bytes(), {
      1: [LEN, (e) => (key = e.string())],
      2: [LEN, (e) => (value = e.string())],
    });
    into[key] = value;
  };
}

/** Decodes a `VersionResponse`. */
export function decodeVersionResponse(bytes: Uint8Array): VersionInfo {
  return decoding("VersionResponse", bytes, (b) => {
    const out: VersionInfo = {
      version: "",
      runtimeName: "",
      runtimeVersion: "",
      runtimeApiVersion: "",
    };
    readFields(b, {
      1: [LEN, (r) => (out.version = r.string())],
      2: [LEN, (r) => (out.runtimeName = r.string())],
      3: [LEN, (r) => (out.runtimeVersion = r.string())],
      4: [LEN, (r) => (out.runtimeApiVersion = r.string())],
    });
    return out;
  });
}

function readCondition(conditions: RuntimeCondition[]): FieldReader {
  return (r) => {
    const c: RuntimeCondition = { type: "", status: false, reason: "", message: "" };
    readFields(r.bytes(), {
      1: [LEN, (f) => (c.type = f.string())],
      2: [VARINT, (f) => (c.status = f.bool())],
      3: [LEN, (f) => (c.reason = f.string())],
      4: [LEN, (f) => (c.message = f.string())],
    });
    conditions.push(c);
  };
}

/** Decodes a `StatusResponse`. */
export function decodeStatusResponse(bytes: Uint8Array): RuntimeStatusInfo {
  return decoding("StatusResponse", bytes, (b) => {
    const out: RuntimeStatusInfo = { conditions: [], info: {} };
    readFields(b, {
      1: [LEN, (r) => readFields(r.bytes(), { 1: [LEN, readCondition(out.conditions)] })],
      2: [LEN, readMapEntry(out.info)],
    });
    return out;
  });
}

/** Decodes a `RuntimeConfigResponse`. */
export function decodeRuntimeConfigResponse(bytes: Uint8Array): RuntimeConfigInfo {
  return decoding("RuntimeConfigResponse", bytes, (b) => {
    const out: RuntimeConfigInfo = {};
    readFields(b, {
      1: [LEN, (r) => {
        out.cgroupDriver ??= "systemd";
        readFields(r.bytes(), {
          1: [VARINT, (f) => {
            const v = f.int32();
            if (v !== 0 && v !== 1) throw new Error(`unknown CgroupDriver ${v}`);
            out.cgroupDriver = v === 1 ? "cgroupfs" : "systemd";
          }],
        });
      }],
    });
    return out;
  });
}

function readImage(into: { image?: ImageInfo }): FieldReader {
  return (r) => {
    const img = into.image ??= { id: "", repoTags: [], repoDigests: [], size: 0n, pinned: false };
    readFields(r.bytes(), {
      1: [LEN, (f) => (img.id = f.string())],
      2: [LEN, (f) => img.repoTags.push(f.string())],
      3: [LEN, (f) => img.repoDigests.push(f.string())],
      4: [VARINT, (f) => (img.size = BigInt(f.uint64()))],
      8: [VARINT, (f) => (img.pinned = f.bool())],
    });
  };
}

/** Decodes an `ImageStatusResponse`: the image, or `undefined` when the runtime does not have it. */
export function decodeImageStatusResponse(bytes: Uint8Array): ImageInfo | undefined {
  return decoding("ImageStatusResponse", bytes, (b) => {
    const out: { image?: ImageInfo } = {};
    readFields(b, { 1: [LEN, readImage(out)] });
    return out.image;
  });
}

/** Decodes a `PullImageResponse`: the pulled image's reference. */
export function decodePullImageResponse(bytes: Uint8Array): string {
  return decoding("PullImageResponse", bytes, (b) => {
    let ref = "";
    readFields(b, { 1: [LEN, (r) => (ref = r.string())] });
    return ref;
  });
}

function readSandbox(items: PodSandbox[]): FieldReader {
  return (r) => {
    const s: PodSandbox = {
      id: "",
      metadata: { name: "", uid: "", namespace: "", attempt: 0 },
      state: "SANDBOX_READY",
      createdAt: 0n,
      labels: {},
      annotations: {},
      runtimeHandler: "",
    };
    readFields(r.bytes(), {
      1: [LEN, (f) => (s.id = f.string())],
      2: [LEN, (f) =>
        readFields(f.bytes(), {
          1: [LEN, (m) => (s.metadata.name = m.string())],
          2: [LEN, (m) => (s.metadata.uid = m.string())],
          3: [LEN, (m) => (s.metadata.namespace = m.string())],
          4: [VARINT, (m) => (s.metadata.attempt = m.uint32())],
        })],
      3: [VARINT, (f) => (s.state = f.int32() === 1 ? "SANDBOX_NOTREADY" : "SANDBOX_READY")],
      4: [VARINT, (f) => (s.createdAt = BigInt(f.int64()))],
      5: [LEN, readMapEntry(s.labels)],
      6: [LEN, readMapEntry(s.annotations)],
      7: [LEN, (f) => (s.runtimeHandler = f.string())],
    });
    items.push(s);
  };
}

/** Decodes a `ListPodSandboxResponse`. */
export function decodeListPodSandboxResponse(bytes: Uint8Array): PodSandbox[] {
  return decoding("ListPodSandboxResponse", bytes, (b) => {
    const items: PodSandbox[] = [];
    readFields(b, { 1: [LEN, readSandbox(items)] });
    return items;
  });
}

function readContainer(items: ContainerInfo[]): FieldReader {
  return (r) => {
    const c: ContainerInfo = {
      id: "",
      podSandboxId: "",
      metadata: { name: "", attempt: 0 },
      state: "CONTAINER_CREATED",
      createdAt: 0n,
      labels: {},
    };
    readFields(r.bytes(), {
      1: [LEN, (f) => (c.id = f.string())],
      2: [LEN, (f) => (c.podSandboxId = f.string())],
      3: [LEN, (f) =>
        readFields(f.bytes(), {
          1: [LEN, (m) => (c.metadata.name = m.string())],
          2: [VARINT, (m) => (c.metadata.attempt = m.uint32())],
        })],
      6: [VARINT, (f) => (c.state = CONTAINER_STATES[f.int32()] ?? "CONTAINER_UNKNOWN")],
      7: [VARINT, (f) => (c.createdAt = BigInt(f.int64()))],
      8: [LEN, readMapEntry(c.labels)],
    });
    items.push(c);
  };
}

/** Decodes a `ListContainersResponse`. */
export function decodeListContainersResponse(bytes: Uint8Array): ContainerInfo[] {
  return decoding("ListContainersResponse", bytes, (b) => {
    const items: ContainerInfo[] = [];
    readFields(b, { 1: [LEN, readContainer(items)] });
    return items;
  });
}

/**
 * Checks an empty response (`StopPodSandboxResponse`, `RemovePodSandboxResponse`,
 * `StopContainerResponse`) decodes.
 */
export function decodeEmptyResponse(what: string, bytes: Uint8Array): void {
  decoding(what, bytes, (b) => readFields(b, {}));
}
