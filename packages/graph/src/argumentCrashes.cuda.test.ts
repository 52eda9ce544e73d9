import { addMod, cuda, Event, Stream, Tensor } from '@fhelium/cuda-native';
import { describeCuda, findArgumentCrashes } from '@fhelium/cuda-native/testing';
import { expect, it } from 'vitest';

import { CudaGraphProgram } from './index.js';
import { moduliOn, randomLimbs } from './testing/fixtures.js';

describeCuda('CudaGraphProgram with hostile arguments', () => {
  it('answers every method call with its own error, never with a failure inside its checks', async () => {
    const m = moduliOn('cuda:0');
    const programs: { close(): void }[] = [];
    const program = (): CudaGraphProgram<[Tensor], Tensor> => {
      const made = CudaGraphProgram.capture((t: Tensor) => addMod(t, t, m), { exampleInputs: [randomLimbs(5n, { device: 'cuda:0' })] });
      programs.push(made);
      return made;
    };
    const input = (): [Tensor] => [randomLimbs(6n, { device: 'cuda:0' })];
    const pinned = (): [Tensor] => [randomLimbs(7n, { pinMemory: true })];
    const recorded = (): Event => {
      const event = new Event();
      event.record(Stream.current('cuda:0'));
      return event;
    };
    const crashes = await findArgumentCrashes(
      { CudaGraphProgram },
      {
        instances: { program },
        // Good calls spoiled one argument or option at a time: reaches the option checks that a
        // call with a bad first argument never gets to.
        examples: {
          'CudaGraphProgram.capture': {
            args: () => [(t: Tensor) => addMod(t, t, m), { exampleInputs: input(), warmup: 1, checkInputLiveness: true }],
            run: (fn, options) => programs.push(CudaGraphProgram.capture(fn as (t: Tensor) => Tensor, options as { exampleInputs: [Tensor] })),
          },
          'program.replay': { args: () => [input(), { copyOutput: true, synchronize: true }], run: (inputs, options) => program().replay(inputs as [Tensor], options as object) },
          'program.copyInputsFrom': {
            args: () => [pinned(), { stream: Stream.current('cuda:0'), nonBlocking: true, waitFor: [recorded()] }],
            run: (inputs, options) => program().copyInputsFrom(inputs as [Tensor], options as object),
          },
          'program.replayPrepared': {
            args: () => [{ copyOutput: false, synchronize: true }],
            run: (options) => {
              const p = program();
              return p.replayPrepared({ ...(options as object), copyHandle: p.copyInputsFrom(pinned()) });
            },
          },
        },
      },
    );
    cuda.synchronize();
    for (const program of programs) program.close();
    expect(crashes).toEqual([]);
  });
});
