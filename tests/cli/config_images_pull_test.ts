// `kubeadm config images pull` through a real containerd v2 (scripts/k8s-bins), in its own
// network namespace, pulling from a local registry (tests/support/oci_registry.ts) that
// containerd reaches for registry.k8s.io: every image `config images list` names is pulled,
// reported as upstream reports it, and present in the runtime afterwards; a missing one fails
// the command naming it.
import assert from "node:assert/strict";
import { CriClient } from "../../adapters/deno/cri/client.ts";
import { type Containerd, startScratchContainerd } from "../support/containerd.ts";
import { createNetNamespace, type NetNamespace } from "../support/netns.ts";
import { nodeImages } from "../support/node_images.ts";
import { type OciRegistry, startOciRegistry, writeRegistryHosts } from "../support/oci_registry.ts";
import { kubeadmLauncher, run } from "../support/commands.ts";

const VERSION = "v1.37.2";

async function imageList(args: string[]): Promise<string[]> {
  const r = await run([kubeadmLauncher(), "config", "images", "list", ...args]);
  assert.equal(r.code, 0, r.stderr);
  return r.stdout.trim().split("\n");
}

/** Every repository an image list names, served (the small pause image stands in for all). */
async function registryFor(ns: NetNamespace, images: readonly string[], leaveOut = "") {
  const pause = [...(await nodeImages()).entries()].find(([ref]) => ref.includes("/pause:"))![1];
  const repos = new Map<string, string>();
  for (const image of images) {
    const repo = image.slice(image.indexOf("/") + 1, image.lastIndexOf(":"));
    if (repo !== leaveOut) repos.set(repo, pause);
  }
  return await startOciRegistry(ns.hostAddress, repos);
}

Deno.test({
  name: "config images pull: every image through the node's CRI, as upstream reports it",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "kts-pull-" });
    const ns = await createNetNamespace();
    let containerd: Containerd | undefined;
    const registries: OciRegistry[] = [];
    try {
      const images = await imageList(["--kubernetes-version", VERSION]);
      const mirrored = await imageList([
        "--kubernetes-version",
        VERSION,
        "--image-repository",
        "mirror.test",
      ]);
      const main = await registryFor(ns, images);
      // The mirror lacks CoreDNS.
      const mirror = await registryFor(ns, mirrored, "coredns");
      registries.push(main, mirror);
      await writeRegistryHosts(`${dir}/certs.d`, "registry.k8s.io", main.host);
      await writeRegistryHosts(`${dir}/certs.d`, "mirror.test", mirror.host);
      containerd = await startScratchContainerd(dir, ns, { registryConfigDir: `${dir}/certs.d` });
      const endpoint = containerd.endpoint;
      const pull = (...args: string[]) =>
        run([kubeadmLauncher(), "config", "images", "pull", ...args, "--cri-socket", endpoint]);

      const pulled = await pull("--kubernetes-version", VERSION);
      assert.equal(pulled.code, 0, `${pulled.stdout}\n${pulled.stderr}`);
      assert.deepEqual(
        pulled.stdout.trim().split("\n"),
        images.map((i) => `[config/images] Pulled ${i}`),
      );
      await CriClient.with(endpoint, async (cri) => {
        for (const image of images) {
          const status = await cri.imageStatus(image);
          assert.ok(status?.repoTags.includes(image), `${image} is not in the runtime`);
        }
      });
      // Resolved by tag at the registry (containerd may fetch a manifest again by digest).
      assert.deepEqual(
        [
          ...new Set(
            main.manifestRequests.filter((r) => !r.includes("@") && !r.includes(":sha256")),
          ),
        ]
          .sort(),
        images.map((i) => i.slice(i.indexOf("/") + 1)).sort(),
      );

      const failed = await pull(
        "--kubernetes-version",
        VERSION,
        "--image-repository",
        "mirror.test",
      );
      assert.equal(failed.code, 1, failed.stderr);
      const coredns = mirrored.find((i) => i.includes("/coredns:"))!;
      const before = mirrored.slice(0, mirrored.indexOf(coredns));
      assert.deepEqual(
        failed.stdout.trim().split("\n"),
        before.map((i) => `[config/images] Pulled ${i}`),
      );
      assert.match(
        failed.stderr,
        new RegExp(`failed to pull image "${coredns}": failed to pull image ${coredns}: `),
      );

      const nowhere = await run([
        kubeadmLauncher(),
        "config",
        "images",
        "pull",
        "--cri-socket",
        `unix://${dir}/none.sock`,
      ]);
      assert.equal(nowhere.code, 1);
      assert.match(nowhere.stderr, /failed to create new CRI runtime service: .*none\.sock/);
      assert.equal(nowhere.stdout, "");
    } finally {
      await containerd?.stop();
      for (const r of registries) await r.close();
      await ns.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
