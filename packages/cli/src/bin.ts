#!/usr/bin/env node
/** The `fhelium` executable: runs the CLI on this process's arguments and exits with its status. */
import { runCli } from './runCli.js';

process.exitCode = await runCli(process.argv.slice(2));
