import { describe, expect, it } from 'vitest';
import { quiesce } from './harness.js';

/** An engine whose rounds move what the list says, then nothing. */
const engine = (rounds: Array<[pushed: number, pulled: number]>) => {
  let calls = 0;
  return {
    get calls() {
      return calls;
    },
    async syncOnce() {
      const [pushed, pulled] = rounds[calls] ?? [0, 0];
      calls += 1;
      return { pushed, pulled };
    },
  };
};

describe('quiesce: sync until a round moves nothing', () => {
  it('returns the rounds it took once a round neither pushes nor pulls (an engine or a node with one)', async () => {
    const e = engine([[3, 0], [0, 2]]);
    expect(await quiesce(e)).toBe(3);
    expect(e.calls).toBe(3);
    expect(await quiesce({ engine: engine([]) })).toBe(1);
  });

  it('throws, naming what each round moved, when sync does not settle within the bound', async () => {
    const e = engine(Array.from({ length: 10 }, (): [number, number] => [1, 1]));
    await expect(quiesce(e, 4)).rejects.toThrow('sync did not settle: each of 4 rounds still pushed or pulled (1↑ 1↓, 1↑ 1↓, 1↑ 1↓, 1↑ 1↓)');
    expect(e.calls).toBe(4);
  });
});
