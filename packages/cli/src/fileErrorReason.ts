/** The reason a file could not be written, for messages that name the option it came from. */

/**
 * Node's message for a file-system error, with the two that read worst said plainly: `mkdir` of a
 * path that is a file fails with "EEXIST: file already exists", and a file in the middle of a path
 * with "ENOTDIR: not a directory" without saying which part. The code stays for searching.
 */
export function fileErrorReason(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const { code, syscall, path } = error as NodeJS.ErrnoException;
  if (code === 'EEXIST' && syscall === 'mkdir' && path !== undefined) return `${path} is a file, not a directory (EEXIST)`;
  if (code === 'ENOTDIR' && path !== undefined) return `a part of ${path} is a file, not a directory (ENOTDIR)`;
  return error.message;
}
