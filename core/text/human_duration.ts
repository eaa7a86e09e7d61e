/**
 * apimachinery's `duration` helpers: `ShortHumanDuration`, the compact durations kubeadm prints
 * in `token list` (TTL), e.g. `23h` or `6d`; and `HumanDuration`, the two-unit durations of
 * `certs check-expiration` (RESIDUAL TIME), e.g. `7d3h` or `9y`.
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

/**
 * Formats a duration in milliseconds like apimachinery's `HumanDuration`: below −1s
 * `<invalid>`, −1s..0 `0s`; otherwise the largest unit, plus the next one where it carries
 * information (`2m5s` below 10m, `3h20m` below 8h, `5d4h` below 8d, `3y12d` below 8y). Every
 * unit is truncated toward zero.
 */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(ms / 60_000);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(ms / 3_600_000);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  const days = Math.trunc(hours / 24);
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${days}d` : `${days}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.trunc(days / 365);
  if (hours < 24 * 365 * 8) {
    const dy = days % 365;
    return dy === 0 ? `${years}y` : `${years}y${dy}d`;
  }
  return `${years}y`;
}
