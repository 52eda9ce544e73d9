/** CUDA events: markers in a stream for ordering, completion checks and timing. */
import { booleanOption } from './boolean-option.js';
import { describeValue } from './describe-value.js';
import { nativeCudaStatus, native, type NativeHandle } from './native.js';
import { CudaUnavailableError, DisposedError, TensorArgumentError } from './errors.js';
import { checkOptionKeys, type OptionKeys } from './option-keys.js';
import { Stream } from './stream.js';

/** Options of the {@link Event} constructor. */
export interface EventOptions {
  /** Record timestamps so {@link Event.elapsedMs} works. Default true. */
  enableTiming?: boolean;
  /** Let {@link Event.synchronize} block (sleep) instead of spinning. Default false. */
  blocking?: boolean;
}
const EVENT_OPTIONS: OptionKeys<EventOptions> = { enableTiming: true, blocking: true };

/**
 * A CUDA event. It belongs to the device of the first stream it is recorded on.
 * @throws {CudaUnavailableError} from the constructor when CUDA is unavailable.
 */
export class Event {
  /** Whether the event records timestamps. */
  readonly enableTiming: boolean;
  #handle: NativeHandle<'event'>;
  #device: string | null = null;
  #disposed = false;

  /**
   * Creates an unrecorded event; the CUDA event itself is made at the first {@link Event.record},
   * on that stream's device.
   * @param options `enableTiming` (default true) and `blocking` (default false).
   * @throws {CudaUnavailableError} when CUDA is unavailable (no CUDA build, driver or device).
   */
  constructor(options: EventOptions = {}) {
    const status = nativeCudaStatus();
    if (!status.available) throw new CudaUnavailableError(`new Event(): CUDA is not available: ${status.reason}`);
    checkOptionKeys(options, EVENT_OPTIONS, 'new Event()');
    this.enableTiming = booleanOption(options.enableTiming, true, 'new Event()', 'enableTiming');
    this.#handle = native().eventCreate(this.enableTiming, booleanOption(options.blocking, false, 'new Event()', 'blocking'));
  }

  /** The device (`'cuda:N'`) once recorded, else null. */
  get device(): string | null {
    return this.#device;
  }

  /** Whether {@link Event.dispose} was called. */
  get isDisposed(): boolean {
    return this.#disposed;
  }

  /**
   * Records the event on `stream` (default: the current stream of the event's device, or of the
   * current CUDA device). Returns this event.
   * @throws {TensorArgumentError} for a stream of another device than an earlier record.
   */
  record(stream?: Stream): this {
    const s = stream ?? Stream.current(this.#device ?? undefined);
    if (!(s instanceof Stream)) throw new TensorArgumentError(`Event.record: expected a Stream, got ${describeValue(s)}`);
    native().eventRecord(this._live('Event.record'), s._live('Event.record'));
    this.#device = s.device;
    return this;
  }

  /** Whether the recorded work has completed (true when never recorded). */
  query(): boolean {
    return native().eventQuery(this._live('Event.query'));
  }

  /** Blocks the host until the recorded work completes. */
  synchronize(): void {
    native().eventSynchronize(this._live('Event.synchronize'));
  }

  /**
   * Milliseconds from this event to `end`; both recorded with timing and completed.
   * @throws {TensorArgumentError} for events never recorded or without timing.
   */
  elapsedMs(end: Event): number {
    if (!(end instanceof Event)) throw new TensorArgumentError(`Event.elapsedMs: expected an Event, got ${describeValue(end)}`);
    return native().eventElapsedMs(this._live('Event.elapsedMs'), end._live('Event.elapsedMs'));
  }

  /** Destroys the event (idempotent). */
  dispose(): void {
    if (this.#disposed) return;
    native().eventDestroy(this.#handle);
    this.#disposed = true;
  }

  [Symbol.dispose](): void {
    this.dispose();
  }

  /** @internal */
  _live(where: string): NativeHandle<'event'> {
    if (this.#disposed) throw new DisposedError(`${where}: the event was disposed`);
    return this.#handle;
  }
}

