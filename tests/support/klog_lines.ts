/**
 * The klog info lines a `--v=N` run prints on stderr, as messages: each line's header
 * (`I1124 16:30:55.210195   30852 file.go:123] `) is checked for klog's format and stripped,
 * so that upstream kubeadm's lines and ours compare by message.
 *
 * @module
 */
import assert from "node:assert/strict";

/** klog's header: severity, MMDD hh:mm:ss.micro, the thread (pid) column, `file:line] `. */
export const KLOG_HEADER = /^I\d{4} \d{2}:\d{2}:\d{2}\.\d{6} +\d+ [\w.-]+:\d+\] /;

/** The messages of the klog info lines in `stderr`, in order, each checked for klog's header. */
export function klogMessages(stderr: string): string[] {
  const out: string[] = [];
  for (const line of stderr.split("\n")) {
    if (!/^I\d{4} /.test(line)) continue;
    assert.match(line, KLOG_HEADER);
    out.push(line.replace(KLOG_HEADER, ""));
  }
  return out;
}

/**
 * Whether a message is a structured klog line (`"message" key=value …`): client-go's and the
 * CRI client's own lines (feature gates, client-side throttling, runtime connections), which
 * are not kubeadm's.
 */
export function isStructuredLine(message: string): boolean {
  return message.startsWith('"');
}
