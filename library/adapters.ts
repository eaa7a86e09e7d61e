/**
 * The adapters the library uses where its caller passes none, chosen here once: the web
 * platform's clock, sleep and CSPRNG (`adapters/web/`) and WebCrypto
 * (`adapters/crypto/webcrypto.ts`), as the command line does. Kept light (the verifier loads
 * it): a plan's own ports, on the offline adapters, are `./node_plan.ts`'s `planPorts`.
 *
 * @module
 */
export { realSleep, systemClock } from "../adapters/web/clock.ts";
export { webRandom } from "../adapters/web/random.ts";
export { webCryptoPort, webHashing } from "../adapters/crypto/webcrypto.ts";
