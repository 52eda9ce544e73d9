#!/usr/bin/env node
/** The `fhelium` executable: runs the CLI on this process's arguments and exits with its status. */
import { runCli } from './runCli.js';

/**
 * A reader that stops reading (`fhelium info | head -1`) closes the pipe, and the next write fails
 * with EPIPE: an 'error' event that Node, with no listener, reports as an unhandled error with a
 * stack trace. Nobody is left to read the rest, so that is a normal end: exit quietly, with 0 when
 * stdout went away (what a shell pipeline expects of a producer cut short), and on stderr with the
 * command's status if it has one by then. Any other stream error stays an error.
 */
function endQuietlyOnEpipe(stream: NodeJS.WriteStream, status: () => number): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(status());
  });
}

endQuietlyOnEpipe(process.stdout, () => 0);
endQuietlyOnEpipe(process.stderr, () => Number(process.exitCode ?? 0));

process.exitCode = await runCli(process.argv.slice(2));
