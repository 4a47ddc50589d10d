import { readSync } from "node:fs";
import { type ConnectOpts, Socket, type SocketConstructorOpts } from "node:net";
import type { Readable } from "node:stream";
import { ReadStream } from "node:tty";

/**
 * One read buffer for every pipe in the process. A read fills it and its callback runs at once,
 * before the next read of any pipe (all on this thread), so sharing it is safe as long as the
 * callback copies what it keeps.
 */
let sharedBuffer: Buffer | undefined;
type OnReadOption = Pick<ConnectOpts, "onread">;
const READ_BUFFER_BYTES = 64 * 1024;

/**
 * The first `bytes` of the shared buffer. The view of the last size read is reused: reads of one
 * size follow each other (a PTY gives at most 4 KiB a read, ~50,000 of them per 200 MB), and a
 * new view per read is garbage enough to grow the young generation, and the RSS, by ~10 MB.
 */
let lastView: Buffer | undefined;
function sharedView(buffer: Buffer, bytes: number): Buffer {
  if (lastView?.byteLength !== bytes || lastView.buffer !== buffer.buffer) {
    lastView = buffer.subarray(0, bytes);
  }
  return lastView;
}

/** The libuv pipe behind a child's output stream, or undefined where Node does not expose it. */
function pipeHandleOf(stream: Readable): object | undefined {
  const handle: unknown = "_handle" in stream ? stream._handle : undefined;
  const usable =
    stream instanceof Socket &&
    typeof handle === "object" &&
    handle !== null &&
    typeof (handle as { readStart?: unknown }).readStart === "function" &&
    typeof (handle as { useUserBuffer?: unknown }).useUserBuffer === "function";
  return usable ? handle : undefined;
}

/**
 * Reads the pipe open on `fd` (one the launcher's command writes to), passing each chunk to
 * `onChunk` as readPipe does; the returned stream owns the fd and closes it.
 */
export function readPipeFd(fd: number, onChunk: (chunk: Uint8Array) => void): Readable {
  sharedBuffer ??= Buffer.allocUnsafe(READ_BUFFER_BYTES);
  return new Socket({
    fd,
    readable: true,
    writable: false,
    onread: {
      buffer: sharedBuffer,
      callback: (bytes: number, buffer: Buffer) => {
        onChunk(sharedView(buffer, bytes));
        return true;
      },
    },
  } as ConstructorParameters<typeof Socket>[0]);
}

/** Most bytes read after the early end (a PTY's buffers hold ~64 KiB): the read cannot loop forever. */
const MAX_BYTES_AFTER_END = 1024 * 1024;

/**
 * Reads the PTY master open on `fd` into the same shared buffer (a flood through a PTY allocated
 * a Buffer per read: +50 MB of RSS for 200 MB); the returned stream owns the fd. The master reads
 * EIO once nothing holds the terminal: that error ends the stream ('close' follows).
 *
 * libuv (1.46, Node 20's) takes a short read that comes with POLLHUP for the end of the stream,
 * but a PTY master can still hold output then: the last slave closed while the kernel had not yet
 * moved what it wrote to the master's side (libuv#4992; a command that prints and exits at once
 * lost its last line once in ~100 runs on a loaded machine). So the stream does not close at that
 * end (`allowHalfOpen`): the rest is read here, up to EIO, before it does.
 */
export function readPtyMaster(fd: number, onChunk: (chunk: Uint8Array) => void): Readable {
  const buffer = (sharedBuffer ??= Buffer.allocUnsafe(READ_BUFFER_BYTES));
  const deliver = (bytes: number, chunk: Buffer): boolean => {
    onChunk(sharedView(chunk, bytes));
    return true;
  };
  // `onread` is a net.Socket option the tty stream passes on (its types list it only for connect).
  const options: SocketConstructorOpts & OnReadOption = {
    allowHalfOpen: true,
    onread: { buffer, callback: deliver },
  };
  const master = new ReadStream(fd, options);
  master.once("end", () => {
    // Non-blocking: each read moves what the kernel still holds for the master, then EIO.
    for (let read = 0; read < MAX_BYTES_AFTER_END;) {
      let bytes: number;
      try {
        bytes = readSync(fd, buffer, 0, buffer.length, null);
      } catch {
        break; // EIO: nothing holds the terminal and nothing is left (EAGAIN: nothing now)
      }
      if (bytes === 0) {
        break;
      }
      deliver(bytes, buffer);
      read += bytes;
    }
    master.destroy();
  });
  master.resume(); // a tty stream starts paused
  return master;
}

/**
 * Reads a child's output pipe, passing each chunk to `onChunk`; returns the stream whose `close`
 * marks the end of the output (and whose `destroy` stops reading).
 *
 * Why not `stream.on("data")`: each of those reads allocates a new 64 KiB Buffer, garbage at once
 * but collected only when V8's external-memory pressure triggers a GC, so 1 GiB of output grew
 * RSS by ~60 MB. A `net.Socket` with `onread` reads into one given buffer instead, but
 * `child_process` cannot be asked for one, so this moves the stream's pipe (its private `_handle`)
 * to a new Socket that reads with `onread`; the old stream lets go of the handle first, so that
 * destroying it (done here, so `child_process` does not resume it at exit) cannot close the pipe.
 * Where `_handle` is not there as expected, the stream is read as usual.
 *
 * The chunk passed to `onChunk` is valid only during the call: copy what you keep. `onChunk`
 * returning false pauses the stream (`resume()` it to read on).
 */
export function readPipe(stream: Readable, onChunk: (chunk: Uint8Array) => unknown): Readable {
  const handle = pipeHandleOf(stream);
  if (!handle) {
    stream.on("data", (chunk: Buffer) => {
      if (onChunk(chunk) === false) {
        stream.pause();
      }
    });
    return stream;
  }
  // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- Node's private _handle, which its types do not declare
  (stream as { _handle?: unknown })._handle = null;
  stream.destroy();
  sharedBuffer ??= Buffer.allocUnsafe(READ_BUFFER_BYTES);
  return new Socket({
    handle,
    readable: true,
    onread: {
      buffer: sharedBuffer,
      callback: (bytes: number, buffer: Buffer) => onChunk(sharedView(buffer, bytes)) !== false,
    },
  } as ConstructorParameters<typeof Socket>[0]);
}
