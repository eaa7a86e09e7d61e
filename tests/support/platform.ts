/**
 * The platform's ports for tests whose subject is not them: WebCrypto, the CSPRNG, the real
 * clock and sleep (the command line's choice).
 *
 * @module
 */
import type { KeyOptions } from "../../core/pki/keys.ts";
import type { Timing } from "../../core/kube/retry.ts";
import { webCryptoPort } from "../../adapters/crypto/webcrypto.ts";
import { webRandom } from "../../adapters/web/random.ts";
import { realSleep, systemClock } from "../../adapters/web/clock.ts";

/** WebCrypto keys from the platform's CSPRNG. */
export const webKeys: KeyOptions = { crypto: webCryptoPort, random: webRandom };

/** The real clock and sleep. */
export const platformTime: Timing = { clock: systemClock, sleep: realSleep };
