#!/usr/bin/env node
// A Node script on dist/kubeadm-core.js: plans a control-plane node and writes its files
// under a directory (as they would sit on the node), plus its cloud-init user-data.
//
//   node plan_node.mjs --hostname cp1 --address 192.0.2.10 --out ./cp1 [--config kubeadm.yaml]
//                      [--seed <text>] [--time 2026-01-01T00:00:00Z]
//
// Prints the join command. With --seed (and --time), the same arguments always write the same
// bytes. Needs Node 20 or newer; no npm packages.
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import process from "node:process";
import { parseArgs } from "node:util";
import { planControlPlane, seededRandom, toCloudInit } from "./kubeadm-core.js";

const { values } = parseArgs({
  options: {
    hostname: { type: "string" },
    address: { type: "string" },
    out: { type: "string" },
    config: { type: "string" },
    seed: { type: "string" },
    time: { type: "string" },
  },
});
if (!values.hostname || !values.out) {
  console.error("usage: plan_node.mjs --hostname NAME --address IP --out DIR [--config FILE]");
  process.exit(2);
}
const time = values.time ? new Date(values.time) : undefined;
const plan = await planControlPlane({
  config: values.config ? await readFile(values.config, "utf8") : undefined,
  host: { hostname: values.hostname, advertiseAddress: values.address },
  random: values.seed ? seededRandom(values.seed) : undefined,
  clock: time ? { now: () => time } : undefined,
});
for (const file of plan.files) {
  const target = join(values.out, file.path);
  await mkdir(dirname(target), { recursive: true, mode: 0o700 });
  await writeFile(target, file.content, { mode: file.mode });
}
await writeFile(join(values.out, "user-data"), toCloudInit(plan), { mode: 0o600 });
console.log(plan.joinCommand);
