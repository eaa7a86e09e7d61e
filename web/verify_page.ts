/**
 * Script of the offline verifier page (`web/verify.html` → `dist/verify.html`): reads the
 * form, runs {@link checkClusterInfo} and shows the verdict, the CA and every check.
 *
 * @module
 */
import type { DiscoveryVerdict } from "../core/discovery/verdict.ts";
import { checkClusterInfo } from "../library/cluster_info.ts";

function byId<T extends HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`missing #${id}`);
  return el as T;
}

/** Splits the hashes field on commas, whitespace and newlines. */
function splitHashes(text: string): string[] {
  return text.split(/[\s,]+/).map((h) => h.trim()).filter((h) => h !== "");
}

function setText(id: string, text: string): void {
  byId(id).textContent = text;
}

function render(v: DiscoveryVerdict): void {
  const verdict = byId("verdict");
  verdict.textContent = v.verdict === "verified" ? "Verified" : "Rejected";
  verdict.dataset.verdict = v.verdict;
  setText("reason", v.reason);
  setText("ca-subject", v.ca?.subject ?? "—");
  setText("ca-issuer", v.ca?.issuer ?? "—");
  setText("ca-serial", v.ca?.serialNumber ?? "—");
  setText("ca-not-before", v.ca?.notBefore ?? "—");
  setText("ca-not-after", v.ca?.notAfter ?? "—");
  setText("ca-pin", v.ca?.pin ?? "—");
  setText("ca-pinned", v.ca ? (v.ca.pinned ? "yes" : "no") : "—");
  const list = byId("checks");
  list.replaceChildren(...v.checks.map((c) => {
    const li = document.createElement("li");
    li.dataset.status = c.status;
    li.dataset.check = c.name;
    li.textContent = `${c.name}: ${c.status} — ${c.message}`;
    return li;
  }));
  setText("verdict-json", JSON.stringify(v, null, 2));
  const section = byId("result");
  section.hidden = false;
  section.dataset.state = "done";
}

async function verify(): Promise<void> {
  const section = byId("result");
  section.dataset.state = "running";
  const verdict = await checkClusterInfo({
    clusterInfo: byId<HTMLTextAreaElement>("cluster-info").value,
    token: byId<HTMLInputElement>("token").value.trim(),
    caCertHashes: splitHashes(byId<HTMLTextAreaElement>("hashes").value),
    unsafeSkipCAVerification: byId<HTMLInputElement>("unsafe").checked,
  });
  render(verdict);
  byId("verdict").focus();
}

function main(): void {
  byId("build-note").hidden = true;
  byId("verdict").tabIndex = -1;
  byId<HTMLFormElement>("verify-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    verify().catch((e) => {
      setText("reason", `internal error: ${e instanceof Error ? e.message : String(e)}`);
      byId("result").hidden = false;
    });
  });
  const file = byId<HTMLInputElement>("cluster-info-file");
  file.addEventListener("change", async () => {
    const f = file.files?.[0];
    if (!f) return;
    byId<HTMLTextAreaElement>("cluster-info").value = await f.text();
    file.dataset.loaded = f.name;
  });
  document.documentElement.dataset.ready = "true";
}

main();
