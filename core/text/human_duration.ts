/**
 * apimachinery's `duration.ShortHumanDuration`: the compact durations kubeadm prints in
 * `token list` (TTL) and `certs check-expiration` (RESIDUAL TIME), e.g. `23h` or `6d`.
 *
 * @module
 */

/**
 * Formats a duration in milliseconds: below −1s `<invalid>`, −1s..0 `0s`, then whole seconds,
 * minutes, hours, days (below a year) or years, each truncated toward zero.
 */
export function shortHumanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.trunc(ms / 60_000);
  if (minutes < 60) return `${minutes}m`;
  const hours = Math.trunc(ms / 3_600_000);
  if (hours < 24) return `${hours}h`;
  if (hours < 24 * 365) return `${Math.trunc(hours / 24)}d`;
  return `${Math.trunc(ms / 3_600_000 / 24 / 365)}y`;
}
