import { readFileSync } from 'node:fs';

import { TensorArgumentError } from '@fhelium/cuda-native';
import { describe, expect, it } from 'vitest';

import { COMMAND_SPECS, runCli } from './runCli.js';
import { memoryIo } from './testing/memoryIo.js';

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = memoryIo();
  const code = await runCli(args, io);
  return { code, out: io.stdoutText(), err: io.stderrText() };
}

const version = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

describe('fhelium (top level)', () => {
  it('prints help listing every command, with and without --help', async () => {
    for (const args of [[], ['--help'], ['-h'], ['help']]) {
      const { code, out, err } = await cli(args);
      expect(code).toBe(0);
      expect(err).toBe('');
      expect(out).toMatch(/^fhelium \d+\.\d+\.\d+: CKKS homomorphic encryption/);
      for (const name of ['demo', 'bench', 'info', 'chart']) expect(out).toMatch(new RegExp(`^  ${name} +\\S`, 'm'));
      expect(out).toMatch(/Start with `fhelium demo`/);
    }
  });

  it('prints the package version', async () => {
    for (const flag of ['--version', '-v']) expect(await cli([flag])).toEqual({ code: 0, out: `${version}\n`, err: '' });
  });

  it('refuses an unknown command with exit code 2, a suggestion and the valid commands', async () => {
    const near = await cli(['bnech']);
    expect(near.code).toBe(2);
    expect(near.err).toMatch(/^error: fhelium: unknown command 'bnech' \(did you mean 'bench'\?\); valid commands are demo, bench, info, chart$/m);
    const far = await cli(['encrypt-everything']);
    expect(far.code).toBe(2);
    expect(far.err).toMatch(/unknown command 'encrypt-everything'; valid commands are demo, bench, info, chart/);
    expect(far.err).toMatch(/Run 'fhelium --help' for usage\./);
  });

  it('refuses an unknown option before the command', async () => {
    const { code, err } = await cli(['--verbose', 'demo']);
    expect(code).toBe(2);
    expect(err).toMatch(/unknown option '--verbose' before the command; valid here: --help, --version, or a command: demo, bench, info, chart/);
  });
});

describe('fhelium <command> --help', () => {
  for (const spec of COMMAND_SPECS) {
    it(`${spec.name}: usage, every option and examples, exit code 0`, async () => {
      for (const args of [[spec.name, '--help'], [spec.name, '-h'], ['help', spec.name]]) {
        const { code, out } = await cli(args);
        expect(code).toBe(0);
        expect(out).toMatch(new RegExp(`^Usage: fhelium ${spec.name} \\[options\\]`));
        for (const name of Object.keys(spec.options)) expect(out).toContain(`--${name}`);
        expect(out).toMatch(/^Examples:\n  fhelium /m);
      }
    });
  }

  it('takes --help over bad options of the same command, unknown ones included', async () => {
    for (const args of [
      ['demo', '--preset', 'nope', '--help'],
      ['demo', '--help', '--bogus'],
      ['demo', '--bogus', '-h', '--size'],
      ['bench', '--out', '', '--suite', 'gpu', '--help'],
      ['chart', '--help', 'extra', '--nope=1'],
      ['info', '--json=yes', '--help'],
    ]) {
      const { code, out, err } = await cli(args);
      expect(code, args.join(' ')).toBe(0);
      expect(out).toMatch(new RegExp(`^Usage: fhelium ${args[0]}`));
      expect(err).toBe('');
    }
  });

  it('reads --help after a -- terminator as an argument, not as a request for help', async () => {
    const { code, err } = await cli(['demo', '--bogus', '--', '--help']);
    expect(code).toBe(2);
    expect(err).toMatch(/unknown option '--bogus'/);
  });
});

describe('unexpected errors', () => {
  // A stdout that throws stands for any error the CLI does not expect (not a CliUsageError or a
  // CliFailure): those get their stack trace only when FHELIUM_DEBUG asks for it.
  async function crash(env: Record<string, string | undefined>): Promise<{ code: number; err: string }> {
    const io = memoryIo(process.cwd(), env);
    const code = await runCli(['info'], {
      ...io,
      stdout: {
        write: () => {
          throw new TypeError('the sink broke');
        },
      },
    });
    return { code, err: io.stderrText() };
  }

  it('prints the stack trace only when FHELIUM_DEBUG is 1 or true (any case)', async () => {
    for (const value of ['1', 'true', 'TRUE', 'True']) {
      const { code, err } = await crash({ FHELIUM_DEBUG: value });
      expect(code, value).toBe(1);
      expect(err).toMatch(/^error: TypeError: the sink broke$/m);
      expect(err, value).toMatch(/^TypeError: the sink broke\n\s+at /m);
      expect(err).not.toMatch(/Set FHELIUM_DEBUG=1/);
    }
    for (const value of [undefined, '', '0', 'false', 'no', 'off']) {
      const { code, err } = await crash({ FHELIUM_DEBUG: value });
      expect(code, String(value)).toBe(1);
      expect(err).toBe('error: TypeError: the sink broke\nSet FHELIUM_DEBUG=1 for the stack trace.\n');
    }
  });

  it("prints an addon error that reaches it as the other library errors, by its message alone", async () => {
    const io = memoryIo();
    const code = await runCli(['info'], {
      ...io,
      stdout: {
        write: () => {
          throw new TensorArgumentError('Tensor.empty: shape[1] must be a non-negative integer, got -1');
        },
      },
    });
    expect(code).toBe(1);
    expect(io.stderrText()).toBe('error: Tensor.empty: shape[1] must be a non-negative integer, got -1\nSet FHELIUM_DEBUG=1 for the stack trace.\n');
  });

  it('describes a thrown value that is not an Error without failing on it', async () => {
    for (const [thrown, text] of [
      [Object.create(null), 'a plain object'],
      [Symbol('s'), 'a symbol'],
      ['boom', '"boom" (string)'],
    ] as const) {
      const io = memoryIo();
      const code = await runCli(['info'], {
        ...io,
        stdout: {
          write: () => {
            throw thrown;
          },
        },
      });
      expect(code).toBe(1);
      expect(io.stderrText()).toBe(`error: ${text} was thrown (not an Error)\nSet FHELIUM_DEBUG=1 for the stack trace.\n`);
    }
  });
});

describe('runCli called with wrong arguments by a program', () => {
  it('rejects with a TypeError naming the argument, and writes nothing', async () => {
    const io = memoryIo();
    const cases: [unknown, unknown, string][] = [
      ['demo', io, 'runCli: argv must be an array of strings (the arguments after `fhelium`), got "demo" (string)'],
      [['demo', 5], io, 'runCli: argv[1] must be a string, got 5 (number)'],
      [[], null, 'runCli: io must be a CliIo { stdout, stderr, env, cwd }, got null'],
      [[], { ...io, stderr: Object.create(null) }, 'runCli: io.stderr.write must be a function, got undefined'],
      [[], { ...io, env: undefined }, 'runCli: io.env must be an object of environment variables, got undefined'],
      [[], { ...io, cwd: Symbol('cwd') }, 'runCli: io.cwd must be a string, got a symbol'],
    ];
    for (const [argv, given, message] of cases) await expect(runCli(argv as string[], given as typeof io), message).rejects.toThrow(new TypeError(message));
    expect(io.stdoutText() + io.stderrText()).toBe('');
  });
});

