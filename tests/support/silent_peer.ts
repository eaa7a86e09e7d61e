/**
 * A peer that never answers, on a fake clock: each call takes as long as it is allowed (the
 * limits its caller gave it, else the peer's own bound for each endpoint it tries) and then
 * fails as a timeout. It records the limits of every call, so tests can check that retries
 * and waits bound their calls by the time they have left.
 *
 * @module
 */
import { ApiError } from "../../core/errors.ts";
import { EtcdRequestError } from "../../core/ports/etcd.ts";
import { KubeClient } from "../../core/kube/client.ts";
import type { Transport, TransportLimits } from "../../core/ports/transport.ts";
import { FakeClock } from "./fake_clock.ts";

/** A silent API server or etcd cluster on a {@link FakeClock}. */
export class SilentPeer {
  /** The `timeoutMs` each call was given (`undefined`: none), in order. */
  readonly limits: (number | undefined)[] = [];
  readonly #clock: FakeClock;
  readonly #ownTimeoutMs: number;
  readonly #tries: number;

  /**
   * @param ownTimeoutMs the bound of one request when its caller gives none (a transport's or
   *   etcd client's own per-request timeout)
   * @param tries endpoints a call tries one after the other (an etcd client's endpoints)
   */
  constructor(clock: FakeClock, ownTimeoutMs: number, tries = 1) {
    this.#clock = clock;
    this.#ownTimeoutMs = ownTimeoutMs;
    this.#tries = tries;
  }

  /** Lets one call run out: the clock moves on by as long as it may take. */
  #hang(limits: TransportLimits | undefined): number {
    const ms = Math.min(this.#tries * this.#ownTimeoutMs, limits?.timeoutMs ?? Infinity);
    this.#clock.ms += ms;
    return ms;
  }

  /**
   * A transport recording every request's limits: the requests `hang` picks (by their number,
   * from 1; default all) never answer and time out, the others go to `otherwise` (default:
   * connection refused at once).
   */
  transport(
    hang: (request: Request, n: number) => boolean = () => true,
    otherwise?: Transport,
  ): Transport {
    return async (request, limits) => {
      this.limits.push(limits?.timeoutMs);
      const call = `Get ${JSON.stringify(request.url)}`;
      if (hang(request, this.limits.length)) {
        const ms = this.#hang(limits);
        throw new ApiError(`${call}: timeout after ${ms}ms`, {
          status: 0,
          reason: "Timeout",
          hint: "the API server did not answer",
        });
      }
      if (otherwise) return await otherwise(request, limits);
      throw new ApiError(`${call}: refused`, {
        status: 0,
        reason: "ConnectionRefused",
        hint: "the API server did not answer",
      });
    };
  }

  /** One etcd call that times out on every endpoint, as the gateway client reports it. */
  etcd(limits?: TransportLimits): Promise<never> {
    this.limits.push(limits?.timeoutMs);
    const ms = this.#hang(limits);
    return Promise.reject(
      new EtcdRequestError(`no etcd endpoint answered: timeout after ${ms}ms`, {
        unreachable: true,
      }),
    );
  }
}

/**
 * An API client (default retry policy) on a fake clock whose server never answers the requests
 * `hang` picks (default all; 30s each unless bounded, as the runtime's transport); the others
 * go to `otherwise` (e.g. a `FakeKubeApi`'s transport), else are refused.
 */
export function silentApiClient(
  hang?: (request: Request, n: number) => boolean,
  otherwise?: Transport,
): { clock: FakeClock; peer: SilentPeer; client: KubeClient } {
  const clock = new FakeClock();
  const peer = new SilentPeer(clock, 30_000);
  const client = new KubeClient({
    server: "https://10.0.0.1:6443",
    transport: peer.transport(hang, otherwise),
    clock,
    sleep: clock.sleep,
  });
  return { clock, peer, client };
}

/**
 * Runs a wait that must fail; returns its error (as `String(error)`: `Name: message`) and how
 * long it took on the fake clock, so that a test checks the time before the wording.
 */
export async function failedWait(
  clock: FakeClock,
  wait: () => Promise<unknown>,
): Promise<{ error: string; elapsedMs: number }> {
  const start = clock.ms;
  try {
    await wait();
  } catch (e) {
    return { error: String(e), elapsedMs: clock.ms - start };
  }
  throw new Error("the wait did not fail");
}
