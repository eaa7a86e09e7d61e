/**
 * Objects whose implementation is loaded on first use. Every module a process loads costs it
 * time and memory (measured with `init phase certs all`: ~0.2 MB of peak memory per module), so
 * the node's adapters that a run may never call (the CRI and etcd clients, process execution,
 * init-system detection) are imported when a method is first called, not when the node is set
 * up.
 *
 * @module
 */

/** Every method of `T`, named once: the compiler refuses a list that misses one. */
export type MethodNames<T> = { readonly [K in keyof T]-?: true };

/**
 * A `T` whose (promise-returning) methods load the real instance with `load` on the first
 * call and hand every call to it; its plain fields (`fields`) are known up front.
 */
export function deferred<T extends object, F extends keyof T = never>(
  load: () => Promise<T>,
  methods: MethodNames<Omit<T, F>>,
  fields: Pick<T, F>,
): T {
  let instance: Promise<T> | undefined;
  const out: Record<string, unknown> = { ...fields };
  for (const name of Object.keys(methods)) {
    out[name] = async (...args: unknown[]) => {
      const real = await (instance ??= load()) as Record<string, unknown>;
      return await (real[name] as (...a: unknown[]) => Promise<unknown>).apply(real, args);
    };
  }
  return out as T;
}
