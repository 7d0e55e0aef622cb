import type { SandboxSize } from '../domain/sandboxes/events.ts';
import {
  type HostResources,
  hasRoom,
  noRoomMessage,
  noSandboxes,
  type SizeCounts,
} from '../domain/sandboxes/hosts.ts';
import { KeyedLocks } from './serial.ts';

// The host's own word on room (domain/sandboxes/hosts.ts): placement in the API picks a host from
// what the read model says each holds, which lags and which two replicas may read at once; the
// host counts what its runtime holds on disk (sandboxes and runs alike, stopped ones too) plus the
// creates under way in this process, and refuses one that does not fit. One host process owns its
// state folder, so this count is exact.

/** No room for the size on this host: the API tries the next host, or answers 503. */
export class NoRoom extends Error {
  constructor(readonly size: SandboxSize) {
    super(noRoomMessage(size));
    this.name = 'NoRoom';
  }
}

export class HostRoom {
  private readonly underWay: SizeCounts = noSandboxes();
  /** Reservations one at a time, so each counts the disk and the others as they are. */
  private readonly turns = new KeyedLocks();

  constructor(
    readonly resources: HostResources,
    /** What the runtime holds on disk, by size. */
    private readonly onDisk: () => Promise<SizeCounts>,
  ) {}

  /**
   * Holds room for one sandbox of `size` until the returned release is called (once the runtime
   * has its record, or the create failed); throws NoRoom when it does not fit.
   */
  reserve(size: SandboxSize): Promise<() => void> {
    return this.turns.run('room', async () => {
      if (!hasRoom(this.resources, await this.held(), size)) throw new NoRoom(size);
      this.underWay[size] += 1;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        this.underWay[size] -= 1;
      };
    });
  }

  /** What the host holds now, creates under way included (its announcements say so). */
  async held(): Promise<SizeCounts> {
    const held = await this.onDisk();
    for (const each of Object.keys(held) as SandboxSize[]) held[each] += this.underWay[each];
    return held;
  }
}
