/**
 * The local container images of real test nodes (built by `scripts/node-images`: OCI archives
 * named as upstream kubeadm names its images, listed in `images.txt`), and importing them into
 * a containerd.
 *
 * @module
 */
import { repoRoot } from "./repo.ts";
import { CriClient } from "../../adapters/deno/cri/client.ts";
import type { Containerd } from "./containerd.ts";

/** The image set of the Kubernetes version the nodes run. */
export const NODE_IMAGE_SET = "v1.37.2";

const cache = new Map<string, Map<string, string>>();

/** Image reference → archive path, for one set. Fails (never skips) when they are not built. */
export async function nodeImages(set = NODE_IMAGE_SET): Promise<Map<string, string>> {
  const cached = cache.get(set);
  if (cached) return cached;
  let dir = Deno.env.get("KUBEADM_TS_NODE_IMAGES_DIR");
  if (!dir) {
    const out = await new Deno.Command(`${repoRoot}/scripts/node-images`, {
      args: ["--print-dir", "--set", set],
      stdout: "piped",
      stderr: "piped",
    }).output().catch((e) => {
      throw new Error(`scripts/node-images --print-dir: ${e}`);
    });
    dir = new TextDecoder().decode(out.stdout).trim().split("\n").pop() ?? "";
    if (!out.success || dir === "") {
      throw new Error(
        `scripts/node-images --print-dir --set ${set} failed: ${
          new TextDecoder().decode(out.stderr).trim()
        }`,
      );
    }
  }
  let list: string;
  try {
    list = await Deno.readTextFile(`${dir}/images.txt`);
  } catch {
    throw new Error(`${dir}/images.txt is missing: run scripts/node-images --set ${set}`);
  }
  const images = new Map<string, string>();
  for (const line of list.split("\n")) {
    if (line.trim() === "") continue;
    const [ref, file] = line.split("\t");
    images.set(ref, `${dir}/${file}`);
  }
  cache.set(set, images);
  return images;
}

/**
 * Imports the named images (all of the set by default) into a containerd's `k8s.io` namespace
 * and waits until its CRI image service (which follows containerd's image events, so it may
 * trail `ctr` a moment) reports each of them.
 */
export async function importNodeImages(
  containerd: Pick<Containerd, "ctr">,
  criEndpoint: string,
  refs?: readonly string[],
  set = NODE_IMAGE_SET,
): Promise<void> {
  const images = await nodeImages(set);
  const wanted = refs ?? [...images.keys()];
  for (const ref of wanted) {
    const archive = images.get(ref);
    if (!archive) throw new Error(`no local image ${ref} in set ${set} (${[...images.keys()]})`);
    await containerd.ctr(["images", "import", archive]);
  }
  await CriClient.with(criEndpoint, async (cri) => {
    const deadline = Date.now() + 30_000;
    for (const ref of wanted) {
      while (await cri.imageStatus(ref).catch(() => undefined) === undefined) {
        if (Date.now() > deadline) throw new Error(`the CRI does not report ${ref} after import`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  });
}
