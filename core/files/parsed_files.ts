/**
 * Files parsed once per run: a run reads the same files again and again (every leaf certificate
 * and kubeconfig loads its CA, later phases check what earlier ones wrote), and what a file's
 * content parses to never changes. A {@link ParsedFiles} remembers it per file system (one
 * run's, garbage-collected with it) and per content; what a run writes can be remembered as
 * written, so that it is never parsed at all.
 *
 * Only successful parses are remembered: content that does not parse fails on every read, in
 * the words of that read.
 *
 * @module
 */
import type { FileReader } from "../ports/files.ts";

/** The text of a file's content. */
export function contentText(data: Uint8Array | string): string {
  return typeof data === "string" ? data : new TextDecoder().decode(data);
}

/** What file contents parse to (a `T`), per file system and content. */
export class ParsedFiles<T> {
  readonly #byFiles = new WeakMap<FileReader, Map<string, T>>();

  #memo(files: FileReader): Map<string, T> {
    let memo = this.#byFiles.get(files);
    if (!memo) this.#byFiles.set(files, memo = new Map());
    return memo;
  }

  /** Remembers that `content`, written or read through `files`, parses to `value`. */
  remember(files: FileReader, content: string, value: T): void {
    this.#memo(files).set(content, value);
  }

  /** What `content` was remembered to parse to through `files`, if anything. */
  get(files: FileReader, content: string): T | undefined {
    return this.#byFiles.get(files)?.get(content);
  }

  /** What `data`, read through `files`, parses to: remembered, or `parse`d now and remembered. */
  of(files: FileReader, data: Uint8Array | string, parse: (text: string) => T): T {
    const memo = this.#memo(files);
    const text = contentText(data);
    if (memo.has(text)) return memo.get(text)!;
    const value = parse(text);
    memo.set(text, value);
    return value;
  }

  /** {@link ParsedFiles.of} for an asynchronous parse. */
  async ofAsync(
    files: FileReader,
    data: Uint8Array | string,
    parse: (text: string) => Promise<T>,
  ): Promise<T> {
    const memo = this.#memo(files);
    const text = contentText(data);
    if (memo.has(text)) return memo.get(text)!;
    const value = await parse(text);
    memo.set(text, value);
    return value;
  }
}
