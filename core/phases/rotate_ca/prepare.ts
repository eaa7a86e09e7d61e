/**
 * The rotate-ca `prepare` phase: keeps the CA in use as `ca-rotation/old-ca` and the new one
 * (`--ca-cert`/`--ca-key`, else generated as `init` generates the CA: same subject, the
 * cluster's CA validity and key type) as `ca-rotation/new-ca`. Nothing reads them yet. On the
 * other control planes, copy `ca-rotation/` from the first before `trust`.
 *
 * @module
 */
import type { Phase } from "../../workflow/phase.ts";
import { certConfigFor, certSpec } from "../../certs/certlist.ts";
import { caPairFiles, NEW_CA, OLD_CA, rotationState } from "../../certs/ca_rotation.ts";
import { createSelfSignedCACert } from "../../pki/cert.ts";
import { generateKeyPair } from "../../pki/keys.ts";
import type { CertAndKey } from "../../certs/pki_dir.ts";
import type { RotateCaData } from "./data.ts";

async function generateCA(data: RotateCaData): Promise<CertAndKey> {
  const spec = certSpec("ca");
  const cfg = certConfigFor(spec, data.cfg, data.now, (l) => data.out.warn(l));
  const key = await generateKeyPair(data.cfg.cluster.encryptionAlgorithm, {
    crypto: data.pki.crypto,
    random: data.random,
  });
  return { cert: await createSelfSignedCACert(cfg, key, data.random, data.pki.crypto), key };
}

/** The `prepare` phase. */
export const preparePhase: Phase<RotateCaData> = {
  name: "prepare",
  short: "Keep the CA in use and make (or take) the new one, in <certificatesDir>/ca-rotation",
  run: async (data) => {
    const { pki, out } = data;
    const state = await rotationState(pki);
    if (state.stage !== "none") {
      out.info(`[rotate-ca] A rotation is under way (stage ${state.stage}): its new CA is kept`);
      return;
    }
    const old = await pki.loadCA("ca");
    const next = data.newCA ?? await generateCA(data);
    const files = [
      ...await caPairFiles(pki, OLD_CA, old),
      ...await caPairFiles(pki, NEW_CA, next),
    ];
    if (data.dryRun) {
      for (const f of files) out.info(`[dryrun] Would write ${f.path}`);
      return;
    }
    // The new CA last: its certificate is what says a rotation is under way.
    for (const f of files) await pki.files.write(f);
    out.info(
      `[rotate-ca] The new CA is in ${pki.certPath(NEW_CA)} (${
        data.newCA ? "given" : "generated"
      }); the CA in use is kept in ${pki.certPath(OLD_CA)}`,
    );
  },
};
