/**
 * How Go's HTTP client names a request in its errors (`Get "https://host/path"`), which
 * kubeadm's messages about failed API and health calls carry.
 *
 * @module
 */

/** `Get "https://host/path"`: the way Go's HTTP client prefixes transport errors. */
export function describeRequest(request: Request): string {
  return describeCall(request.method, request.url);
}

/** {@link describeRequest} from a method and a URL. */
export function describeCall(method: string, url: string): string {
  return `${method.charAt(0)}${method.slice(1).toLowerCase()} ${JSON.stringify(url)}`;
}
