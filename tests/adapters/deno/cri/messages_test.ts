// The hand-written CRI codec against bytes from upstream's generated code: every vector below
// is `proto.MarshalOptions{Deterministic: true}.Marshal` of the k8s.io/cri-api v0.37.2 Go type
// named in the test, printed as hex (the container ones from a program kept outside the repo,
// ~/.cache/kubeadm-ts/crivec).
import assert from "node:assert/strict";
import {
  decodeEmptyResponse,
  decodeImageStatusResponse,
  decodeListContainersResponse,
  decodeListPodSandboxResponse,
  decodePullImageResponse,
  decodeRuntimeConfigResponse,
  decodeStatusResponse,
  decodeVersionResponse,
  encodeImageStatusRequest,
  encodeListContainersRequest,
  encodeListPodSandboxRequest,
  encodePodSandboxIdRequest,
  encodePullImageRequest,
  encodeRuntimeConfigRequest,
  encodeStatusRequest,
  encodeStopContainerRequest,
  encodeVersionRequest,
  MessageDecodeError,
} from "../../../../adapters/deno/cri/messages.ts";

const hex = (s: string) => Uint8Array.from(s.match(/../g) ?? [], (b) => parseInt(b, 16));
const toHex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");

Deno.test("CRI messages: requests encode as upstream's generated code does", () => {
  assert.equal(toHex(encodeVersionRequest("v1")), "0a027631");
  assert.equal(toHex(encodeStatusRequest(true)), "0801");
  assert.equal(toHex(encodeStatusRequest(false)), "");
  assert.equal(
    toHex(encodeImageStatusRequest("registry.k8s.io/pause:3.10.2", true)),
    "0a1e0a1c72656769737472792e6b38732e696f2f70617573653a332e31302e321001",
  );
  assert.equal(
    toHex(encodePullImageRequest("registry.k8s.io/etcd:3.7.0-0")),
    "0a1e0a1c72656769737472792e6b38732e696f2f657463643a332e372e302d30",
  );
  assert.equal(toHex(encodePodSandboxIdRequest("abc123")), "0a06616263313233");
  assert.equal(toHex(encodeRuntimeConfigRequest()), "");
  assert.equal(toHex(encodeListPodSandboxRequest()), "");
  assert.equal(
    toHex(
      encodeListContainersRequest({
        "io.kubernetes.pod.namespace": "kube-system",
        "io.kubernetes.pod.name": "etcd-cp1",
      }),
    ),
    "0a5022220a16696f2e6b756265726e657465732e706f642e6e616d651208657463642d637031222a0a1b696f2e6b756265726e657465732e706f642e6e616d657370616365120b6b7562652d73797374656d",
  );
  assert.equal(toHex(encodeListContainersRequest({})), "0a00");
  assert.equal(toHex(encodeStopContainerRequest("abc123", 30)), "0a06616263313233101e");
  assert.equal(toHex(encodeStopContainerRequest("abc123", 0)), "0a06616263313233");
});

Deno.test("CRI messages: VersionResponse", () => {
  assert.deepEqual(
    decodeVersionResponse(
      hex("0a05302e312e30120a636f6e7461696e6572641a0676322e342e3222027631"),
    ),
    {
      version: "0.1.0",
      runtimeName: "containerd",
      runtimeVersion: "v2.4.2",
      runtimeApiVersion: "v1",
    },
  );
});

Deno.test("CRI messages: StatusResponse, skipping runtime handlers and features", () => {
  const status = decodeStatusResponse(hex(
    "0a550a100a0c52756e74696d65526561647910010a410a0c4e6574776f726b52656164791a154e6574776f726b" +
      "506c7567696e4e6f745265616479221a636e6920706c7567696e206e6f7420696e697469616c697a656412390a" +
      "06636f6e666967122f7b2273616e64626f78496d616765223a2272656769737472792e6b38732e696f2f706175" +
      "73653a332e31302e32227d12140a06676f6c616e67120a22676f312e32362e36221a0a0a0472756e6312020801" +
      "22020801",
  ));
  assert.deepEqual(status, {
    conditions: [
      { type: "RuntimeReady", status: true, reason: "", message: "" },
      {
        type: "NetworkReady",
        status: false,
        reason: "NetworkPluginNotReady",
        message: "cni plugin not initialized",
      },
    ],
    info: {
      config: '{"sandboxImage":"registry.k8s.io/pause:3.10.2"}',
      golang: '"go1.26.6"',
    },
  });
});

Deno.test("CRI messages: RuntimeConfigResponse, with the proto3 default (systemd) omitted", () => {
  assert.deepEqual(decodeRuntimeConfigResponse(hex("0a020801")), { cgroupDriver: "cgroupfs" });
  assert.deepEqual(decodeRuntimeConfigResponse(hex("0a00")), { cgroupDriver: "systemd" });
  assert.deepEqual(decodeRuntimeConfigResponse(hex("")), {});
  assert.throws(() => decodeRuntimeConfigResponse(hex("0a020807")), /unknown CgroupDriver 7/);
});

Deno.test("CRI messages: ImageStatusResponse, present and absent", () => {
  assert.deepEqual(
    decodeImageStatusResponse(hex(
      "0a700a097368613235363a6161121c72656769737472792e6b38732e696f2f70617573653a332e31302e3212" +
        "116c6f63616c686f73742f70617573653a781a1f72656769737472792e6b38732e696f2f7061757365407368" +
        "613235363a62622080808080202a0408ffff033a030a01784001",
    )),
    {
      id: "sha256:aa",
      repoTags: ["registry.k8s.io/pause:3.10.2", "localhost/pause:x"],
      repoDigests: ["registry.k8s.io/pause@sha256:bb"],
      size: 1n << 33n,
      pinned: true,
    },
  );
  assert.equal(decodeImageStatusResponse(new Uint8Array(0)), undefined);
});

Deno.test("CRI messages: PullImageResponse and the empty responses", () => {
  assert.equal(decodePullImageResponse(hex("0a097368613235363a6363")), "sha256:cc");
  decodeEmptyResponse("StopPodSandboxResponse", new Uint8Array(0));
  // Fields a newer runtime may add are skipped.
  decodeEmptyResponse("RemovePodSandboxResponse", hex("0a0178"));
});

Deno.test("CRI messages: ListPodSandboxResponse with maps, enums and a negative int64", () => {
  const items = decodeListPodSandboxResponse(hex(
    "0a85010a027331121e0a09657463642d6e6f6465120275311a0b6b7562652d73797374656d20021801209" +
      "59a97f9f694bfbd182a110a09636f6d706f6e656e741204657463642a150a0474696572120d636f6e747" +
      "26f6c2d706c616e6532230a1b6b756265726e657465732e696f2f636f6e6669672e736f7572636512046" +
      "6696c653a0472756e630a1d0a027332120c0a01701a0764656661756c7420ffffffffffffffffff01",
  ));
  assert.deepEqual(items, [
    {
      id: "s1",
      metadata: { name: "etcd-node", uid: "u1", namespace: "kube-system", attempt: 2 },
      state: "SANDBOX_NOTREADY",
      createdAt: 1764000000123456789n,
      labels: { component: "etcd", tier: "control-plane" },
      annotations: { "kubernetes.io/config.source": "file" },
      runtimeHandler: "runc",
    },
    {
      id: "s2",
      metadata: { name: "p", uid: "", namespace: "default", attempt: 0 },
      state: "SANDBOX_READY",
      createdAt: -1n,
      labels: {},
      annotations: {},
      runtimeHandler: "",
    },
  ]);
});

Deno.test("CRI messages: ListContainersResponse with metadata, states, labels and a negative int64", () => {
  const list = decodeListContainersResponse(hex(
    "0ac2010a026331120273311a080a04657463641002221e0a1c72656769737472792e6b38732e696f2f657463643a332e362e352d302a097368613235363a61623001388080e8a0fcf7a7be1842240a1c696f2e6b756265726e657465732e636f6e7461696e65722e6e616d65120465746364421b0a15696f2e6b756265726e657465732e706f642e756964120275314a290a24696f2e6b756265726e657465732e636f6e7461696e65722e72657374617274436f756e7412013252097368613235363a61620a1f0a026330120273311a080a04657463641001300238ffffffffffffffffff010a0b0a0263391a030a01783003",
  ));
  assert.deepEqual(list, [
    {
      id: "c1",
      podSandboxId: "s1",
      metadata: { name: "etcd", attempt: 2 },
      state: "CONTAINER_RUNNING",
      createdAt: 1764460800000000000n,
      labels: { "io.kubernetes.pod.uid": "u1", "io.kubernetes.container.name": "etcd" },
    },
    {
      id: "c0",
      podSandboxId: "s1",
      metadata: { name: "etcd", attempt: 1 },
      state: "CONTAINER_EXITED",
      createdAt: -1n,
      labels: {},
    },
    {
      id: "c9",
      podSandboxId: "",
      metadata: { name: "x", attempt: 0 },
      state: "CONTAINER_UNKNOWN",
      createdAt: 0n,
      labels: {},
    },
  ]);
  decodeEmptyResponse("StopContainerResponse", new Uint8Array(0));
});

Deno.test("CRI messages: proto3 merging — repeated fields accumulate, last scalar wins", () => {
  // Two RuntimeStatus fields (each with one condition) and a repeated map key.
  const a = "0a100a0c52756e74696d6552656164791001";
  const b = "0a100a0c4e6574776f726b52656164791001";
  const info1 = "120a0a016b120576616c7565";
  const info2 = "12060a016b12017a";
  const status = decodeStatusResponse(hex(`0a12${a}0a12${b}${info1}${info2}`));
  assert.deepEqual(status.conditions.map((c) => c.type), ["RuntimeReady", "NetworkReady"]);
  assert.deepEqual(status.info, { k: "z" });
  // A known field with an unexpected wire type is skipped, not misread.
  assert.equal(decodePullImageResponse(hex("0805")), "");
});

Deno.test("CRI messages: malformed input is a MessageDecodeError naming the message", () => {
  // Field 1 claims 16 bytes, 2 follow.
  assert.throws(
    () => decodeVersionResponse(hex("0a106162")),
    (e: unknown) =>
      e instanceof MessageDecodeError && /^cannot decode VersionResponse: /.test(e.message),
  );
  assert.throws(() => decodeListPodSandboxResponse(hex("0aff")), MessageDecodeError);
  assert.throws(() => decodeEmptyResponse("StopPodSandboxResponse", hex("07")), MessageDecodeError);
});
